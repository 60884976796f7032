"""Explicit endings written for edges that hold: a retraction (``retractEdge``) and the
contradictions a model found, at exactly one scope. The caller recomputes the timelines of
the groups returned (``timelines``), as ``supersession`` leaves them to the unit."""

from __future__ import annotations

from collections.abc import Sequence

from kenning.domain.ingestion.request import EdgeEnding
from kenning.storage.db.agtype import prop
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.graph_write_sql import GraphSql

Parts = tuple[str, str, str]
Group = tuple[str, str]  # (from key, edge type)


async def write_endings(
    conn: Connection, sql: GraphSql, parts: Parts, endings: Sequence[EdgeEnding]
) -> tuple[set[Group], int]:
    """Insert the endings whose edge holds now at exactly ``parts`` (checked in this
    transaction, whatever the caller read before); the groups they touch and how many."""
    if not endings:
        return set(), 0
    rows = await conn.fetch(
        _endings_sql(sql),
        *parts,
        [e.from_key for e in endings],
        [e.edge_type for e in endings],
        [e.to_key for e in endings],
        [e.valid_at for e in endings],
        [e.reason.value for e in endings],
        [e.ended_by for e in endings],
    )
    return {(r["from_key"], r["edge_type"]) for r in rows}, len(rows)


def _endings_sql(sql: GraphSql) -> str:
    """$1..$3 scope; $4..$9 from keys, types, to keys, valid times (null: now), reasons,
    by → the endings written. An edge of another scope never matches: the scope is part of
    every probe, of the edge and of both its ends."""
    return f"""
        INSERT INTO edge_endings (client_id, project_id, group_id, from_key, edge_type,
                                  to_key, valid_at, reason, ended_by)
        SELECT $1::text, $2::text, $3::text, u.fk, u.et, u.tk, coalesce(u.at, now()), u.reason,
               u.by
        FROM unnest($4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[],
                    $9::text[]) AS u(fk, et, tk, at, reason, by)
        WHERE EXISTS (
            SELECT 1 FROM {sql.vertices} s
            CROSS JOIN LATERAL (
                SELECT r.properties, r.end_id FROM {sql.edges} r
                WHERE r.start_id = s.id OFFSET 0) r
            CROSS JOIN LATERAL (
                SELECT e.properties FROM {sql.vertices} e WHERE e.id = r.end_id OFFSET 0) e
            WHERE {sql.scope_match("s", 1)} AND {prop("s", "key")} = u.fk
              AND {prop("r", "edgeType")} = u.et AND {sql.scope_match("r", 1)}
              AND {sql.scope_match("e", 1)} AND {prop("e", "key")} = u.tk
              AND {prop("r", "validTo")} IS NULL)
        RETURNING from_key, edge_type
    """
