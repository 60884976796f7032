"""`findNodes` reads candidates through its trigram indexes, never by scanning the vertices.

Sequential scans are disabled for the check, so one that still shows up means no index can
serve it: an expression in find_sql no longer spelled like its index in migration 0012.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest

from kenning.domain.graph.find import WORD_SIMILARITY_THRESHOLD
from kenning.settings import Settings
from kenning.storage.graph.find_sql import THRESHOLD_SETTING, find_nodes_sql

pytestmark = pytest.mark.integration

READER = ("acme", "web", "frontend")


def scans(plan: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(node type, relation, index) of every scan in a JSON plan."""
    found: list[tuple[str, str, str]] = []
    if "Relation Name" in plan or "Index Name" in plan:
        found.append((plan["Node Type"], plan.get("Relation Name", ""), plan.get("Index Name", "")))
    for child in plan.get("Plans", []):
        found.extend(scans(child))
    return found


@pytest.mark.parametrize(("types", "every_client"), [(None, False), (["service"], True)])
async def test_find_nodes_reads_through_the_trigram_and_key_indexes(
    pool: asyncpg.Pool,
    migrated_settings: Settings,
    clean: None,
    types: list[str] | None,
    every_client: bool,
) -> None:
    sql = find_nodes_sql(migrated_settings.graph_name, every_client)
    clients = () if every_client else ([READER[0], ""],)
    args = (*READER, "billing svc", "service:billing svc", "billing svc", 20, types, *clients)
    async with pool.acquire() as conn, conn.transaction():
        # Statistics of the (empty) vertices as they are now, not as an earlier test's rows
        # left them: the planner then weighs the same plan in every run.
        await conn.execute(f'ANALYZE {migrated_settings.graph_name}."Entity"')
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute(
            "SELECT set_config($1, $2, true)", THRESHOLD_SETTING, str(WORD_SIMILARITY_THRESHOLD)
        )
        raw = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *args)
    plan = scans(json.loads(raw)[0]["Plan"])
    assert not [s for s in plan if s[0] == "Seq Scan" and s[1] == "Entity"], plan
    used = {index for _, _, index in plan}
    assert {"ix_entity_find_names", "ix_entity_find_text", "ix_entity_key"} <= used, plan
    # The scope predicate filters the candidates; it never drives the read.
    assert "ix_entity_scope_key" not in used
