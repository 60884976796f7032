"""``PgRelationStore``: relation declarations, edge histories and explicit endings (the
domain's ``RelationStore``), each write one transaction that recomputes the timelines it
changes (``timelines.recompute``), a retraction writing its ``changes`` record in it
too; and ``declare_all``, the declarations a write unit stores in its own transaction (a
knowledge file's)."""

from __future__ import annotations

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.ingestion.relations import (
    Declaration,
    Declarations,
    Declared,
    IntervalView,
    Relation,
    check_room,
)
from kenning.domain.ingestion.request import EdgeEnding
from kenning.domain.ingestion.validity import Cardinality, EndReason
from kenning.domain.memory.graph_changes import retraction_change
from kenning.storage.db.agtype import prop
from kenning.storage.db.change_rows import insert_change
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params, visible_graph, visible_rows
from kenning.storage.ingestion.edge_endings import write_endings
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.timelines import Group, Parts, cardinalities, recompute

MAX_HISTORY = 1000


def _relation(row: asyncpg.Record) -> Relation:
    return Relation(
        row["edge_type"],
        Cardinality(row["cardinality"]),
        row["description"],
        row["defined_by"],
        row["defined_at"],
    )


class PgRelationStore:
    """Implements ``RelationStore`` over an asyncpg pool and one graph."""

    def __init__(self, pool: asyncpg.Pool, graph: str) -> None:
        self._pool = pool
        self._sql = GraphSql(graph)

    async def relations(self, client_id: str) -> list[Relation]:
        rows = await self._pool.fetch(
            """SELECT edge_type, cardinality, description, defined_by, defined_at
               FROM relations WHERE client_id = $1 ORDER BY edge_type""",
            client_id,
        )
        return [_relation(r) for r in rows]

    async def declare(
        self,
        client_id: str,
        edge_type: str,
        cardinality: Cardinality,
        description: str,
        defined_by: str,
    ) -> Declared:
        async with self._pool.acquire() as conn, conn.transaction():
            declared = Declaration(edge_type, cardinality, description)
            return await declare(conn, self._sql, client_id, declared, defined_by)

    async def history(
        self, reader: Scope, from_key: str, edge_type: str, to_key: str | None
    ) -> list[IntervalView]:
        rows = await self._pool.fetch(
            self._history_sql(),
            *reader_params(reader),
            from_key,
            edge_type,
            to_key,
            MAX_HISTORY,
        )
        return [
            IntervalView(
                from_key,
                edge_type,
                r["to_key"],
                stored_scope(r["client"], r["project"], r["grp"]),
                r["valid_from"],
                r["valid_to"],
                r["recorded_at"],
                r["ended_at"],
                EndReason(r["ended_reason"]) if r["ended_reason"] else None,
                r["ended_by"],
            )
            for r in rows
            if r["valid_from"] is not None
        ]

    def _history_sql(self) -> str:
        """$1..$3 reader; $4 from key; $5 edge type; $6 to key or null; $7 limit."""
        sql = self._sql
        at = {
            name: f"({prop('r', name)})::timestamptz"
            for name in ("validFrom", "validTo", "recordedAt", "endedAt")
        }
        return f"""
            SELECT * FROM (
                SELECT i.client_id AS client, i.project_id AS project, i.group_id AS grp,
                       i.to_key, i.valid_from, i.valid_to, i.recorded_at, i.ended_at,
                       i.ended_reason, i.ended_by
                FROM edge_intervals i
                WHERE {visible_rows(1, "i")} AND i.from_key = $4 AND i.edge_type = $5
                  AND ($6::text IS NULL OR i.to_key = $6)
                UNION ALL
                SELECT {prop("r", "client")}, {prop("r", "project")}, {prop("r", "group")},
                       {prop("e", "key")}, {at["validFrom"]}, {at["validTo"]},
                       {at["recordedAt"]}, {at["endedAt"]}, {prop("r", "endedReason")},
                       {prop("r", "endedBy")}
                FROM {sql.vertices} s
                CROSS JOIN LATERAL (
                    SELECT r.properties, r.end_id FROM {sql.edges} r
                    WHERE r.start_id = s.id OFFSET 0) r
                CROSS JOIN LATERAL (
                    SELECT e.properties FROM {sql.vertices} e WHERE e.id = r.end_id OFFSET 0) e
                WHERE {prop("s", "key")} = $4 AND {visible_graph("s", 1)}
                  AND {prop("r", "edgeType")} = $5 AND {visible_graph("r", 1)}
                  AND {visible_graph("e", 1)}
                  AND ($6::text IS NULL OR {prop("e", "key")} = $6)
                  AND NOT EXISTS (
                    SELECT 1 FROM edge_intervals i
                    WHERE i.client_id = {prop("r", "client")}
                      AND i.project_id = {prop("r", "project")}
                      AND i.group_id = {prop("r", "group")} AND i.from_key = $4
                      AND i.edge_type = $5 AND i.to_key = {prop("e", "key")})
            ) h
            ORDER BY h.valid_from, h.to_key, h.recorded_at, h.client, h.project, h.grp
            LIMIT $7
        """

    async def end(
        self,
        scope: Scope,
        from_key: str,
        edge_type: str,
        to_key: str,
        reason: EndReason,
        ended_by: str,
        why: str | None = None,
    ) -> bool:
        parts = (scope.client_id, scope.project_id, scope.group_id)
        ending = EdgeEnding(from_key, edge_type, to_key, reason, ended_by)
        async with self._pool.acquire() as conn, conn.transaction():
            groups, _ = await write_endings(conn, self._sql, parts, [ending])
            if not groups:
                return False
            declared = await cardinalities(conn, scope.client_id)
            await recompute(conn, self._sql, parts, groups, declared)
            if reason is EndReason.RETRACTED:
                edge = (from_key, edge_type, to_key)
                await insert_change(conn, retraction_change(scope, edge, ended_by, why))
            return True


async def declare_all(
    conn: Connection, sql: GraphSql, client_id: str, declared: Declarations
) -> int:
    """Store every declaration of ``declared`` in the caller's transaction; how many current
    edges they ended. ``TooLargeError`` (naming ``declared.field``) past ``MAX_RELATIONS``."""
    rows = await conn.fetch("SELECT edge_type FROM relations WHERE client_id = $1", client_id)
    adding = [d.edge_type for d in declared.relations]
    check_room([r["edge_type"] for r in rows], adding, declared.field)
    ended = 0
    for declaration in declared.relations:
        done = await declare(conn, sql, client_id, declaration, declared.defined_by)
        ended += done.edges_ended
    return ended


async def declare(
    conn: Connection, sql: GraphSql, client_id: str, declared: Declaration, defined_by: str
) -> Declared:
    """Store one declaration in the caller's transaction and re-time every edge of its type
    in the client; the relation stored and how many current edges it ended."""
    row = await conn.fetchrow(
        """INSERT INTO relations (client_id, edge_type, cardinality, description, defined_by)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (client_id, edge_type) DO UPDATE
           SET cardinality = EXCLUDED.cardinality, description = EXCLUDED.description,
               defined_by = EXCLUDED.defined_by, defined_at = now()
           RETURNING edge_type, cardinality, description, defined_by, defined_at""",
        client_id,
        declared.edge_type,
        declared.cardinality.value,
        declared.description,
        defined_by,
    )
    assert row is not None
    groups = await conn.fetch(_groups_sql(sql), client_id, declared.edge_type)
    cardinality = await cardinalities(conn, client_id)
    by_scope: dict[Parts, set[Group]] = {}
    for g in groups:
        parts = (g["client"], g["project"], g["grp"])
        by_scope.setdefault(parts, set()).add((g["from_key"], declared.edge_type))
    for parts in sorted(by_scope):
        await recompute(conn, sql, parts, by_scope[parts], cardinality)
    still = await conn.fetch(_groups_sql(sql), client_id, declared.edge_type)
    current = sum(g["current"] for g in groups) - sum(g["current"] for g in still)
    return Declared(_relation(row), max(0, current))


def _groups_sql(sql: GraphSql) -> str:
    """$1 client, $2 edge type → each (scope, from key) with such edges, and how many of
    them hold now."""
    return f"""
        SELECT {prop("r", "client")} AS client, {prop("r", "project")} AS project,
               {prop("r", "group")} AS grp, {prop("s", "key")} AS from_key,
               count(*) FILTER (WHERE {prop("r", "validTo")} IS NULL)::int AS current
        FROM {sql.edges} r
        CROSS JOIN LATERAL (
            SELECT s.properties FROM {sql.vertices} s WHERE s.id = r.start_id OFFSET 0) s
        WHERE {prop("r", "client")} = $1 AND {prop("r", "edgeType")} = $2
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 3, 4
    """
