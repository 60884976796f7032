"""``chunk_vectors`` and ``chunk_scopes`` (migration 0021) follow every write to ``chunks``."""

from __future__ import annotations

import uuid

import asyncpg
import pytest

from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clean")]

INSERT = (
    "INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id, "
    "content, embedding, content_hash) SELECT x.id, 'doc:' || x.id, 0, 'note', x.client, "
    "x.project, x.grp, 'text', array_fill(v.value, ARRAY[$5::int])::vector, 'h' "
    "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(id, client, project, grp), "
    "LATERAL (SELECT (0.1 + length(x.id) * 0.01)::real AS value) v"
)
# What the triggers must have kept, recomputed from the chunks themselves.
EXPECTED = (
    "SELECT client_id, id, project_id, group_id, kind, knowledge_type, tags, source_urn, "
    "embedding::halfvec::text FROM chunks ORDER BY 1, 2"
)
KEPT = (
    "SELECT v.client_id, v.id, s.project_id, s.group_id, v.kind, v.knowledge_type, v.tags, "
    "v.source_urn, v.embedding::text FROM chunk_vectors v "
    "JOIN chunk_scopes s ON s.id = v.scope AND s.client_id = v.client_id ORDER BY 1, 2"
)


@pytest.fixture
def dim(migrated_settings: Settings) -> int:
    return migrated_settings.embedding_dim


async def _insert(pool: asyncpg.Pool, dim: int, rows: list[tuple[str, str, str, str]]) -> None:
    ids, clients, projects, groups = (list(column) for column in zip(*rows, strict=True))
    await pool.execute(INSERT, ids, clients, projects, groups, dim)


async def _kept_equals_recomputed(pool: asyncpg.Pool) -> int:
    kept = [tuple(r) for r in await pool.fetch(KEPT)]
    assert kept == [tuple(r) for r in await pool.fetch(EXPECTED)]
    assert await pool.fetchval("SELECT count(*) FROM chunk_vectors") == len(kept)
    return len(kept)


async def test_triggers_keep_the_side_tables_through_every_write(
    pool: asyncpg.Pool, dim: int
) -> None:
    await _insert(pool, dim, [
        ("a1", "acme", "web", "fe"), ("a2", "acme", "", ""), ("g1", "", "", ""),
        ("b1", "beta", "web", "fe"),
    ])  # fmt: skip
    assert await _kept_equals_recomputed(pool) == 4
    await pool.execute("UPDATE chunks SET project_id = 'api', group_id = 'be' WHERE id = 'a1'")
    await pool.execute("UPDATE chunks SET client_id = 'beta' WHERE id = 'a2'")
    await pool.execute(
        "UPDATE chunks SET embedding = array_fill(0.5::real, ARRAY[$1::int])::vector "
        "WHERE id = 'b1'",
        dim,
    )
    await pool.execute("UPDATE chunks SET kind = 'code', tags = '{x}', knowledge_type = 'FACT'")
    await pool.execute("UPDATE chunks SET content = 'other text'")  # nothing copied changes
    assert await _kept_equals_recomputed(pool) == 4
    async with pool.acquire() as conn:
        with pytest.raises(asyncpg.PostgresError):
            async with conn.transaction():
                await conn.execute("DELETE FROM chunks WHERE id = 'g1'")
                await conn.execute("SELECT 1/0")
    assert await _kept_equals_recomputed(pool) == 4
    await pool.execute("DELETE FROM chunks WHERE id IN ('g1', 'b1')")
    assert await _kept_equals_recomputed(pool) == 2
    await pool.execute("TRUNCATE chunks")
    assert await pool.fetchval("SELECT count(*) FROM chunk_vectors") == 0


async def test_a_scope_numbered_after_the_writers_snapshot_fails_the_write(
    pool: asyncpg.Pool, migrated_settings: Settings, dim: int
) -> None:
    """A repeatable-read writer cannot see a scope another transaction numbered after its
    snapshot: its insert fails as a serialization failure, to be retried, and never
    stores a chunk that exact scans would not find."""
    scope = ("acme", f"new-{uuid.uuid4().hex}", "")  # numbers outlive chunks: a fresh one
    conn = await asyncpg.connect(asyncpg_dsn(migrated_settings.database_url))
    try:
        async with conn.transaction(isolation="repeatable_read"):
            await conn.fetchval("SELECT count(*) FROM chunk_scopes")  # takes the snapshot
            await _insert(pool, dim, [("first", *scope)])  # commits the new scope's number
            with pytest.raises(asyncpg.SerializationError):
                await conn.execute(INSERT, ["second"], *([v] for v in scope), dim)
    finally:
        await conn.close()
    assert [r["id"] for r in await pool.fetch("SELECT id FROM chunks")] == ["first"]
    assert await _kept_equals_recomputed(pool) == 1
