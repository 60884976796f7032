"""The ingest benchmark's databases: their names, their PostgreSQL processes, a digest of what
an ingest wrote and a way to empty it."""

from __future__ import annotations

import asyncpg

from kenning.settings import EmbedderKind
from kenning.storage.db.agtype import as_jsonb, prop

CLIENT = "bench"  # the client every benchmark row belongs to
DATABASES = {EmbedderKind.HASH: "kenning_bench", EmbedderKind.LOCAL: "kenning_bench_local"}


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
