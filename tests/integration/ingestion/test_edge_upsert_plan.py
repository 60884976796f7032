"""The edge upsert finds each end by its key, even where the statistics say the scope is empty.

A project's vertices are usually counted by ``ANALYZE`` while the project is new. With a
join, PostgreSQL then read every vertex of the scope for each batch and matched the keys
in a join filter: 30-40 ms a batch once the scope held 800 vertices, growing with it.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from kenning.settings import Settings
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.graph_write_sql import GraphSql

pytestmark = pytest.mark.integration

SCOPE = ("plan-client", "plan-project", "")
VERTICES = 400


def _nodes(plan: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(plan, dict):
        found.append(plan)
        for value in plan.values():
            found += _nodes(value)
    elif isinstance(plan, list):
        for item in plan:
            found += _nodes(item)
    return found


async def test_each_end_is_an_index_probe_by_key_with_stale_statistics(
    pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    sql = GraphSql(migrated_settings.graph_name)
    keys = [f"service:plan-{i:04d}" for i in range(VERTICES)]
    async with pool.acquire() as conn:
        transaction = conn.transaction()  # rolled back (pg_class.reltuples stays as counted)
        await transaction.start()
        try:
            plan, inserted = await _upsert_plan(conn, sql, keys)
        finally:
            await transaction.rollback()
    nodes = _nodes(json.loads(plan))
    probes = [n for n in nodes if n.get("Relation Name") == "Entity"]
    assert probes, plan
    for probe in probes:
        assert "'key'" in probe.get("Index Cond", ""), probe
        assert probe["Actual Rows"] <= 1, probe  # per loop: one vertex, not the scope
    assert all(n.get("Rows Removed by Join Filter", 0) == 0 for n in nodes)
    assert inserted == 20


async def _upsert_plan(conn: Connection, sql: GraphSql, keys: list[str]) -> tuple[str, int]:
    """``VERTICES`` vertices stored after ``ANALYZE`` counted none, then 20 edges between
    them upserted under ``EXPLAIN ANALYZE``: the plan and the edges stored."""
    await conn.execute(f"ANALYZE {sql.vertices}")  # the scope has no vertex yet
    await conn.execute(
        sql.insert_vertices(merge_properties=False),
        *SCOPE, keys, ["service"] * VERTICES, ["{}"] * VERTICES,
    )  # fmt: skip
    edges = [(keys[i], "calls", keys[i + 1]) for i in range(0, 40, 2)]  # 20
    args = (
        *SCOPE,
        [f for f, _, _ in edges],
        [t for _, t, _ in edges],
        [to for _, _, to in edges],
        ['["c1"]'] * len(edges),
        ["{}"] * len(edges),
    )
    plan = await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql.upsert_edges()}", *args)
    inserted = await conn.fetchval(
        f"SELECT count(*) FROM {sql.edges} r JOIN {sql.vertices} v ON v.id = r.start_id "
        f"WHERE {sql.scope_match('v', 1)}",
        *SCOPE,
    )
    return str(plan), int(inserted)
