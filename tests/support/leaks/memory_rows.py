"""The memory rows the leak audit checks each read path against: every row, read with no
visibility predicate, each checked to carry the tag of the home its rule stores it at."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from kenning.domain.access.scope import ProjectGroups, Scope
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import tag, tags_in


@dataclass(frozen=True, slots=True)
class MemoryRows:
    """Every memory row, read with no visibility predicate."""

    knowledge: list[asyncpg.Record]
    sessions: list[asyncpg.Record]
    procedures: list[asyncpg.Record]
    rules: list[asyncpg.Record]
    groups: ProjectGroups


async def memory_rows(api: Api) -> MemoryRows:
    """Every memory row; each must carry the tag of the home it is stored at."""
    pool = api.runtime.pool
    rows = MemoryRows(
        await pool.fetch(
            "SELECT kind, source_urn, client_id, project_id, group_id, metadata->>'subject' "
            "AS subject, string_agg(content, E'\\n\\n' ORDER BY ordinal) AS content FROM chunks "
            "WHERE kind LIKE 'user_knowledge_%' GROUP BY 1, 2, 3, 4, 5, 6"
        ),
        await pool.fetch(
            "SELECT id, client_id, project_id, group_id, summary FROM session_entries"
        ),
        await pool.fetch("SELECT id, client_id, trigger_pattern, description FROM procedures"),
        await pool.fetch(
            "SELECT client_id, project_id, rule_key, version, content, superseded_at IS NULL "
            "AND deleted_at IS NULL AS active FROM hard_rules"
        ),
        ProjectGroups(
            {
                (r["client_id"], r["project_id"]): r["group_id"]
                for r in await pool.fetch("SELECT * FROM project_groups")
            }
        ),
    )
    _check_homes(rows)
    return rows


def session_of(scope: Scope) -> tuple[str, str, str]:
    """The session a scope writes and reads: its project's, its group's, or its client's."""
    return scope.client_id, scope.project_id, "" if scope.project_id else scope.group_id


def _check_homes(rows: MemoryRows) -> None:
    for r in rows.knowledge:
        assert tag(Scope(r["client_id"], r["project_id"], r["group_id"])) in r["content"], r
    for r in rows.sessions:
        homes = {session_of(s) for s in tags_in(r["summary"])}
        assert homes == {(r["client_id"], r["project_id"], r["group_id"])}, r
    for r in rows.procedures:
        assert tag(Scope(r["client_id"])) in r["description"], r
    for r in rows.rules:
        assert tag(Scope(r["client_id"], r["project_id"])) in r["content"], r
