"""The stored graph read back through Cypher, for tests to compare with what was written."""

from __future__ import annotations

import json

import asyncpg


async def graph_edges(
    pool: asyncpg.Pool, graph: str
) -> set[tuple[str, str, str, str, tuple[str, ...]]]:
    """Every edge as (client, from, type, to, evidence), read through Cypher."""
    rows = await pool.fetch(
        f"SELECT * FROM cypher('{graph}', $$ MATCH (a)-[r]->(b) RETURN r.client, a.key, "
        "r.edgeType, b.key, r.evidenceChunkIds $$) AS (c agtype, a agtype, t agtype, "
        "b agtype, e agtype)"
    )
    return {
        (json.loads(r["c"]), json.loads(r["a"]), json.loads(r["t"]), json.loads(r["b"]),
         tuple(json.loads(r["e"])))
        for r in rows
    }  # fmt: skip


async def graph_vertices(pool: asyncpg.Pool, graph: str) -> list[tuple[str, str]]:
    """Every vertex as (client, key), read through Cypher, sorted (duplicates kept)."""
    rows = await pool.fetch(
        f"SELECT * FROM cypher('{graph}', $$ MATCH (v) RETURN v.client, v.key $$) "
        "AS (c agtype, k agtype)"
    )
    return sorted((json.loads(r["c"]), json.loads(r["k"])) for r in rows)
