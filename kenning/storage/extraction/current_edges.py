"""``PgCurrentEdges``: the edges a chunk's entities already have, for the contradiction
check of graph extraction (the domain's ``CurrentEdges``), at exactly the writer's scope."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.ports import CurrentEdge
from kenning.storage.db.agtype import as_jsonb, prop
from kenning.storage.ingestion.graph_write_sql import GraphSql


class PgCurrentEdges:
    """Implements ``CurrentEdges`` over an asyncpg pool and one graph."""

    def __init__(self, pool: asyncpg.Pool, graph: str) -> None:
        self._pool = pool
        self._sql = GraphSql(graph)

    async def touching(
        self,
        scope: Scope,
        keys: Collection[str],
        *,
        valid_by: datetime | None,
        excluding_source: str,
        limit: int,
    ) -> list[CurrentEdge]:
        if not keys or limit <= 0:
            return []
        rows = await self._pool.fetch(
            _touching_sql(self._sql),
            scope.client_id,
            scope.project_id,
            scope.group_id,
            sorted(set(keys)),
            excluding_source,
            valid_by,
            limit,
        )
        return [CurrentEdge(r["from_key"], r["edge_type"], r["to_key"]) for r in rows]


def _touching_sql(sql: GraphSql) -> str:
    """$1..$3 scope; $4 keys; $5 the source whose chunks' edges are left out; $6 valid by
    (null: any time); $7 limit → the current edges at exactly that scope from or to a key,
    newest first. Each vertex, edge and end is probed with the scope: nothing of another
    client or scope can be listed. Every step is an index probe (``OFFSET 0`` keeps each
    lateral a per-row lookup); only the keys' own edges are read, and only the ``limit``
    newest have their ends looked up. Ties break by edge id, so one graph lists alike."""
    valid_from = f"({prop('r', 'validFrom')})::timestamptz"
    evidence = f"({as_jsonb('r.properties')} -> 'evidenceChunkIds')"
    edge = f"SELECT r.id, r.start_id, r.end_id, r.properties FROM {sql.edges} r"
    return f"""
        WITH own AS MATERIALIZED (
            SELECT coalesce(array_agg(c.id::text), '{{}}'::text[]) AS ids FROM chunks c
            WHERE c.client_id = $1 AND c.project_id = $2 AND c.group_id = $3
              AND c.source_urn = $5
        ),
        v AS MATERIALIZED (
            SELECT v.id FROM unnest($4::text[]) AS k(key)
            CROSS JOIN LATERAL (
                SELECT v.id FROM {sql.vertices} v
                WHERE {sql.scope_match("v", 1)} AND {prop("v", "key")} = k.key OFFSET 0) v
        ),
        r AS MATERIALIZED (
            SELECT r.* FROM v CROSS JOIN LATERAL ({edge} WHERE r.start_id = v.id OFFSET 0) r
            UNION ALL
            SELECT r.* FROM v CROSS JOIN LATERAL ({edge} WHERE r.end_id = v.id OFFSET 0) r
            WHERE r.start_id NOT IN (SELECT id FROM v)
        ),
        picked AS MATERIALIZED (
            SELECT r.id, r.start_id, r.end_id, {prop("r", "edgeType")} AS edge_type,
                   {valid_from} AS valid_from
            FROM r CROSS JOIN own
            WHERE {sql.scope_match("r", 1)} AND {prop("r", "validTo")} IS NULL
              AND ($6::timestamptz IS NULL OR {valid_from} <= $6::timestamptz)
              AND NOT ({evidence} ?| own.ids)
            ORDER BY 5 DESC, 1
            LIMIT $7
        )
        SELECT {prop("s", "key")} AS from_key, p.edge_type, {prop("e", "key")} AS to_key
        FROM picked p
        CROSS JOIN LATERAL (
            SELECT s.properties FROM {sql.vertices} s
            WHERE s.id = p.start_id AND {sql.scope_match("s", 1)} OFFSET 0) s
        CROSS JOIN LATERAL (
            SELECT e.properties FROM {sql.vertices} e
            WHERE e.id = p.end_id AND {sql.scope_match("e", 1)} OFFSET 0) e
        ORDER BY p.valid_from DESC, p.id
    """
