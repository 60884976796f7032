"""The ingest benchmark's databases: recreate one, find its PostgreSQL processes, digest and
empty what an ingest wrote."""

from __future__ import annotations

import asyncio

import asyncpg

from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.agtype import as_jsonb, prop
from kenning.storage.db.database_url import asyncpg_dsn, database_name, with_database
from kenning.storage.db.migrate import run_upgrade

CLIENT = "bench"  # the client every benchmark row belongs to
DATABASES = {EmbedderKind.HASH: "kenning_bench", EmbedderKind.LOCAL: "kenning_bench_local"}


def fresh_database(settings: Settings) -> None:
    """Drop, create and migrate the run's database (sync: Alembic runs its own loop)."""
    name = database_name(settings.database_url)
    if name not in DATABASES.values():
        raise SystemExit(f"refusing to recreate {name!r}: not a benchmark database")

    async def recreate() -> None:
        conn = await asyncpg.connect(asyncpg_dsn(with_database(settings.database_url, "postgres")))
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(recreate())
    run_upgrade(settings)


async def postgres_pids(pool: asyncpg.Pool) -> list[int]:
    """Backends of this database and the server's background processes (WAL, checkpoints)."""
    rows = await pool.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR datname IS NULL"
    )
    return [int(r["pid"]) for r in rows]


async def stored_digest(pool: asyncpg.Pool, graph: str) -> dict[str, object]:
    """Row counts and digests of everything an ingest writes, to compare two runs."""
    triples = f"""
        SELECT {prop("s", "key")} || '|' || {prop("r", "edgeType")} || '|' || {prop("e", "key")}
               || '|' || ({as_jsonb("r.properties")} -> 'evidenceChunkIds')::text AS t
        FROM {graph}."REL" r JOIN {graph}."Entity" s ON s.id = r.start_id
        JOIN {graph}."Entity" e ON e.id = r.end_id"""
    row = await pool.fetchrow(
        f"""SELECT
            (SELECT count(*) FROM chunks) AS chunks,
            (SELECT count(*) FROM sources) AS sources,
            (SELECT count(*) FROM source_mentions) AS mentions,
            (SELECT count(*) FROM {graph}."Entity") AS vertices,
            (SELECT count(*) FROM {graph}."REL") AS edges,
            (SELECT md5(coalesce(string_agg(id || content_hash || array_to_string(graph_refs, ',')
                 || embedding::text, ';' ORDER BY id), '')) FROM chunks) AS chunks_md5,
            (SELECT md5(coalesce(string_agg({prop("", "key")}, ';' ORDER BY {prop("", "key")}),
                 '')) FROM {graph}."Entity") AS vertices_md5,
            (SELECT md5(coalesce(string_agg(t, ';' ORDER BY t), '')) FROM ({triples}) x)
                AS edges_md5,
            (SELECT md5(coalesce(string_agg(source_urn || content_hash || chunk_count::text
                 || coalesce(main_node_key, ''), ';' ORDER BY source_urn), '')) FROM sources)
                AS sources_md5"""
    )
    assert row is not None
    return dict(row)


async def truncate(pool: asyncpg.Pool, graph: str) -> None:
    """Empty what an ingest writes (a fresh relation each: no bloat carries over)."""
    await pool.execute(
        f'TRUNCATE chunks, sources, source_mentions, aliases, {graph}."Entity", {graph}."REL"'
    )
