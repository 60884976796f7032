"""Every graph read statement is driven by indexes (no sequential scan of the graph tables).

Sequential scans are disabled for the check, so a scan that still shows up means no index
can serve it (an expression no longer spelled like its index). Scope indexes must not
appear either: the scope predicate sits outside the fenced lookups (see graph_read_sql).
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from kenning.domain.graph.model import Direction
from kenning.settings import Settings
from kenning.storage.graph.read_sql import graph_read_sql

pytestmark = pytest.mark.integration

READER = ("acme", "web", "frontend")
KEYS = ["user:john", "user:ann"]


def scans(plan: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(node type, relation, index) of every scan in a JSON plan."""
    found: list[tuple[str, str, str]] = []
    if "Relation Name" in plan or "Index Name" in plan:
        found.append((plan["Node Type"], plan.get("Relation Name", ""), plan.get("Index Name", "")))
    for child in plan.get("Plans", []):
        found.extend(scans(child))
    return found


async def plan_of(pool: asyncpg.Pool, sql: str, *args: object) -> list[tuple[str, str, str]]:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        raw = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *READER, *args)
    return scans(json.loads(raw)[0]["Plan"])


async def test_graph_reads_use_their_indexes(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> None:
    sql = graph_read_sql(migrated_settings.graph_name)
    statements: dict[str, tuple[str, tuple[object, ...]]] = {
        "nodes": (sql.nodes_by_keys(), (KEYS,)),
        "edges": (sql.edges_of_nodes(Direction.BOTH, True), (KEYS, 10, ["knows"])),
        "degrees": (sql.degrees(), (KEYS,)),
        "frontier": (sql.frontier_edges(Direction.BOTH, False, True), (KEYS, 100)),
        "frontier_out": (sql.frontier_edges(Direction.OUT, True, False), (KEYS, 100, ["a"])),
        "by_ids": (sql.edges_by_ids(), ([1, 2],)),
        "chunks": (sql.chunks_of_nodes(), (KEYS, 5)),
    }
    # A partition's index (``chunks`` is partitioned, 0016) counts as its parent index.
    rows = await pool.fetch(
        "SELECT c.relname AS index, p.relname AS parent FROM pg_inherits i "
        "JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent "
        "WHERE c.relkind = 'i'"
    )
    parents: dict[str, str] = {r["index"]: r["parent"] for r in rows}
    used: set[str] = set()
    for name, (text, args) in statements.items():
        plan = await plan_of(pool, text, *args)
        assert plan, name
        assert not [s for s in plan if s[0] == "Seq Scan"], (name, plan)
        used |= {parents.get(index, index) for _, _, index in plan}
    assert {"ix_entity_key", "ix_entity_id", "ix_rel_end", "ix_rel_id"} <= used
    assert used & {"ix_rel_start", "ix_rel_triple"}  # both start with start_id
    assert "ix_chunks_graph_refs" in used
    # The scope predicate filters; it never drives (that plan read a whole client per key).
    assert not used & {"ix_entity_scope_key", "ix_chunks_scope", "ix_chunks_connection"}
