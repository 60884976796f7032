"""A source that replaces others (``ingest(supersedes:)``), inside the writer's transaction:
the named sources' edges that the new one does not restate end, their chunks are marked
superseded, and removing the new source later takes both back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError
from kenning.domain.ingestion.edge_sources import source_mark
from kenning.storage.db.agtype import as_jsonb, prop
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.graph_write_sql import GraphSql

Parts = tuple[str, str, str]
Group = tuple[str, str]
_AT = "coalesce($6::timestamptz, now())"


async def supersede(
    conn: Connection,
    sql: GraphSql,
    parts: Parts,
    sources: Sequence[str],
    by: str,
    at: datetime | None,
) -> set[Group]:
    """End and mark what ``sources`` (at exactly ``parts``) said; the groups whose edges got
    an ending, for the unit to settle. ``ScopeError`` when one is not stored there (the same
    answer whether or not it exists at another scope or client)."""
    named = sorted(set(sources))
    found = await conn.fetch(
        """SELECT source_urn FROM sources WHERE client_id = $1 AND project_id = $2
           AND group_id = $3 AND source_urn = ANY($4::text[])""",
        *parts,
        named,
    )
    missing = sorted(set(named) - {r["source_urn"] for r in found})
    if missing:
        raise ScopeError(f"supersedes: {missing[0]!r} is not a source at this scope")
    scope = Scope(*parts)
    marks = [source_mark(scope, urn) for urn in named]
    rows = await conn.fetch(_supersede_sql(sql), *parts, named, by, at, marks)
    return {(r["from_key"], r["edge_type"]) for r in rows}


def _supersede_sql(sql: GraphSql) -> str:
    """$1..$3 scope; $4 superseded URNs; $5 the new source; $6 when (null: now); $7 their
    marks (``edge_sources``) → the endings written. An edge ends only when every piece of
    its evidence is one of theirs: their chunks, and their assertions (found from the keys
    the sources mention)."""
    evidence = f"({as_jsonb('r.properties')} -> 'evidenceChunkIds')"
    return f"""
        WITH c AS MATERIALIZED (
            SELECT c.id, c.graph_refs FROM chunks c
            WHERE c.client_id = $1 AND c.project_id = $2 AND c.group_id = $3
              AND c.source_urn = ANY($4::text[])
        ),
        ids AS (
            SELECT coalesce(array_agg(c.id::text), '{{}}'::text[]) || $7::text[] AS every
            FROM c),
        keys AS (
            SELECT k.key FROM c CROSS JOIN LATERAL unnest(c.graph_refs) AS k(key)
            UNION
            SELECT m.node_key FROM source_mentions m
            WHERE m.client_id = $1 AND m.project_id = $2 AND m.group_id = $3
              AND m.source_urn = ANY($4::text[])),
        e AS (
            SELECT {prop("s", "key")} AS from_key, {prop("r", "edgeType")} AS edge_type,
                   {prop("t", "key")} AS to_key
            FROM keys CROSS JOIN ids
            CROSS JOIN LATERAL (
                SELECT s.id, s.properties FROM {sql.vertices} s
                WHERE {sql.scope_match("s", 1)} AND {prop("s", "key")} = keys.key OFFSET 0) s
            CROSS JOIN LATERAL (
                SELECT r.end_id, r.properties FROM {sql.edges} r
                WHERE r.start_id = s.id OFFSET 0) r
            CROSS JOIN LATERAL (
                SELECT t.properties FROM {sql.vertices} t WHERE t.id = r.end_id OFFSET 0) t
            WHERE {sql.scope_match("r", 1)} AND {prop("r", "validTo")} IS NULL
              AND {evidence} ?| ids.every
              AND NOT EXISTS (
                SELECT 1 FROM jsonb_array_elements_text({evidence}) AS x(id)
                WHERE x.id <> ALL(ids.every))
        ),
        marks AS (
            INSERT INTO chunk_marks (client_id, chunk_id, superseded_at, superseded_by, kind)
            SELECT $1, c.id, {_AT}, $5, 'source' FROM c
            ON CONFLICT (client_id, chunk_id) DO UPDATE
            SET superseded_at = EXCLUDED.superseded_at,
                superseded_by = EXCLUDED.superseded_by, kind = 'source'
        )
        INSERT INTO edge_endings (client_id, project_id, group_id, from_key, edge_type, to_key,
                                  valid_at, reason, ended_by)
        SELECT $1, $2, $3, e.from_key, e.edge_type, e.to_key, {_AT}, 'SUPERSEDED', $5 FROM e
        RETURNING from_key, edge_type
    """


async def take_back(conn: Connection, parts: Parts, source_urn: str) -> set[Group]:
    """Undo what ``source_urn`` superseded (it is being removed): its endings and its marks;
    the groups whose endings went, for the unit to settle."""
    rows = await conn.fetch(
        """DELETE FROM edge_endings WHERE client_id = $1 AND project_id = $2
           AND group_id = $3 AND ended_by = $4 AND reason = 'SUPERSEDED'
           RETURNING from_key, edge_type""",
        *parts,
        source_urn,
    )
    await conn.execute(
        """DELETE FROM chunk_marks WHERE client_id = $1 AND kind = 'source'
           AND superseded_by = $2""",
        parts[0],
        source_urn,
    )
    return {(r["from_key"], r["edge_type"]) for r in rows}
