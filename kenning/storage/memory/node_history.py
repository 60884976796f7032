"""``PgNodeHistory``: corrections of node properties (``updateNode``) and their history.

A correction is one transaction: the vertex's property lock, one statement that rewrites
the vertex at exactly the writer's scope and returns its properties before and after, the
versions it replaces ended and the new ones added (``node_versions``), and its ``changes``
record. Versions are read with the scope rule of the vertices they belong to.
"""

from __future__ import annotations

import json
from typing import Final

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.ingestion.node_properties import PropertyPatch, property_changes
from kenning.domain.memory.graph_changes import node_change
from kenning.domain.memory.node_history import Correction, NodeUpdate, PropertyVersion
from kenning.storage.db.agtype import as_jsonb, prop, to_agtype
from kenning.storage.db.change_rows import insert_change
from kenning.storage.db.visibility import reader_params, visible_rows
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.node_versions import lock_properties, write_versions

_VERSIONS: Final = f"""
    SELECT seq, client_id, project_id, group_id, node_key, name, value::text AS value, source,
           changed_by, observed_at, recorded_at, ended_at, ended_by
    FROM node_property_versions p
    WHERE p.node_key = $4 AND {visible_rows(1, "p")}
      AND ($5::text IS NULL OR p.name = $5::text)
      AND ($6::bigint IS NULL OR p.seq < $6::bigint)
    ORDER BY p.seq DESC LIMIT $7
"""


def _update_sql(sql: GraphSql) -> str:
    """$1..$3 scope; $4 key; $5 values to set (jsonb); $6 names to remove → the vertex's
    properties before and after (``new`` null when nothing changed); no row when there is
    no such vertex."""
    patched = "(old.props - $6::text[]) || $5::jsonb"
    return f"""
        WITH old AS MATERIALIZED (
            SELECT v.id, {as_jsonb("v.properties")} AS props FROM {sql.vertices} v
            WHERE {sql.scope_match("v", 1)} AND {prop("v", "key")} = $4
        ),
        up AS (
            UPDATE {sql.vertices} v SET properties = {to_agtype(patched)}
            FROM old WHERE v.id = old.id AND {patched} <> old.props
            RETURNING {as_jsonb("v.properties")} AS props
        )
        SELECT old.props::text AS old, up.props::text AS new FROM old LEFT JOIN up ON true
    """


def _version(row: asyncpg.Record) -> PropertyVersion:
    return PropertyVersion(
        seq=row["seq"],
        node_key=row["node_key"],
        name=row["name"],
        value=json.loads(row["value"]),
        scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
        source=row["source"],
        changed_by=row["changed_by"],
        observed_at=row["observed_at"],
        recorded_at=row["recorded_at"],
        ended_at=row["ended_at"],
        ended_by=row["ended_by"],
    )


class PgNodeHistory:
    """Implements the domain's ``NodeHistoryStore`` over a pool and one graph."""

    def __init__(self, pool: asyncpg.Pool, graph: str) -> None:
        self._pool = pool
        self._update = _update_sql(GraphSql(graph))

    async def update(
        self, target: Scope, key: str, patch: PropertyPatch, correction: Correction
    ) -> NodeUpdate | None:
        parts = (target.client_id, target.project_id, target.group_id)
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_properties(conn, parts, [key])
            row = await conn.fetchrow(
                self._update, *parts, key, json.dumps(dict(patch.set)), list(patch.unset)
            )
            if row is None:
                return None
            if row["new"] is None:
                return NodeUpdate(key, target, ())
            changes = property_changes(json.loads(row["old"]), json.loads(row["new"]))
            await write_versions(
                conn,
                parts,
                [(key, c) for c in changes],
                source=None,
                changed_by=correction.by,
                observed_at=correction.observed_at,
            )
            update = NodeUpdate(key, target, changes)
            await insert_change(conn, node_change(update, correction))
            return update

    async def versions(
        self, reader: Scope, key: str, name: str | None, first: int, before: int | None
    ) -> list[PropertyVersion]:
        rows = await self._pool.fetch(_VERSIONS, *reader_params(reader), key, name, before, first)
        return [_version(row) for row in rows]
