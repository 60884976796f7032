"""``chunk_vector_versions`` (migration 0022): every write statement that changes a client's
``chunk_vectors`` rows raises that client's counter, and no other write does."""

from __future__ import annotations

import asyncpg
import pytest

from kenning.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clean")]

INSERT = (
    "INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id, "
    "content, embedding, content_hash) SELECT x.id, 'doc:' || x.id, 0, 'note', x.client, '', "
    "'', 'text', array_fill(0.5::real, ARRAY[$3::int])::vector, 'h' "
    "FROM unnest($1::text[], $2::text[]) AS x(id, client)"
)
VERSIONS = (
    "SELECT c.client_id, (SELECT coalesce(sum(version), 0) FROM chunk_vector_versions v "
    "WHERE v.client_id = c.client_id) AS version FROM unnest(ARRAY['acme', 'beta']) c(client_id)"
)


async def _versions(pool: asyncpg.Pool) -> dict[str, int]:
    return {r["client_id"]: int(r["version"]) for r in await pool.fetch(VERSIONS)}


async def test_each_write_raises_the_counters_of_the_clients_it_changed(
    pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    dim = migrated_settings.embedding_dim
    await pool.execute(INSERT, ["a1", "a2", "b1"], ["acme", "acme", "beta"], dim)
    start = await _versions(pool)
    assert min(start.values()) >= 1
    # Whether acme's and beta's counters rise (an update of chunks rewrites the side rows
    # in two statements, a delete and an insert: by two).
    changes = [
        ("UPDATE chunks SET content = 'other' WHERE id = 'a1'", (False, False)),  # not copied
        ("UPDATE chunks SET embedding = embedding + embedding WHERE id = 'a1'", (True, False)),
        ("UPDATE chunks SET tags = '{x}' WHERE client_id = 'acme'", (True, False)),
        ("UPDATE chunks SET client_id = 'beta' WHERE id = 'a2'", (True, True)),
        ("DELETE FROM chunks WHERE id = 'b1'", (False, True)),
        ("DELETE FROM chunks WHERE id = 'nothing'", (False, False)),
        # Writes to the side table itself (Kenning's go through chunks; these must count too).
        ("UPDATE chunk_vectors SET tags = '{y}' WHERE id = 'a1'", (True, False)),
        ("UPDATE chunk_vectors SET client_id = 'beta' WHERE id = 'a1'", (True, True)),
        ("TRUNCATE chunk_vectors", (True, True)),
        ("TRUNCATE chunks", (True, True)),
    ]
    for statement, rises in changes:
        before = await _versions(pool)
        await pool.execute(statement)
        after = await _versions(pool)
        assert all(after[c] >= before[c] for c in before), statement
        assert (after["acme"] > before["acme"], after["beta"] > before["beta"]) == rises, statement


async def test_a_rolled_back_write_leaves_the_counters_as_they_were(
    pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    dim = migrated_settings.embedding_dim
    await pool.execute(INSERT, ["a1"], ["acme"], dim)
    before = await _versions(pool)
    async with pool.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        await conn.execute(INSERT, ["a9"], ["acme"], dim)
        await conn.execute("DELETE FROM chunks WHERE id = 'a1'")
        assert (await conn.fetch(VERSIONS))[0]["version"] > before["acme"]
        await transaction.rollback()
    assert await _versions(pool) == before
