"""The SQL text of edge timelines, apart from the code that runs it (``timelines.py``): the
touched groups' edges with their evidence's times, their intervals replaced, the edges'
validity properties set, and the supersession marks of their evidence chunks."""

from __future__ import annotations

from typing import Final

from kenning.domain.ingestion.edge_sources import ASSERTIONS
from kenning.storage.db.agtype import as_jsonb, prop, to_agtype
from kenning.storage.ingestion.graph_write_sql import GraphSql

VALIDITY: Final = ("validFrom", "validTo", "recordedAt", "endedAt", "endedReason", "endedBy")
GROUPS: Final = "(from_key, edge_type) IN (SELECT * FROM unnest($4::text[], $5::text[]))"
SCOPE: Final = "client_id = $1 AND project_id = $2 AND group_id = $3"

# The group's intervals replaced in one statement (a data-modifying WITH always runs).
REPLACE_INTERVALS: Final = f"""
    WITH gone AS (DELETE FROM edge_intervals WHERE {SCOPE} AND {GROUPS})
    INSERT INTO edge_intervals (client_id, project_id, group_id, from_key, edge_type, to_key,
        valid_from, valid_to, recorded_at, ended_at, ended_reason, ended_by)
    SELECT $1, $2, $3, u.*
    FROM unnest($6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[],
                $11::timestamptz[], $12::timestamptz[], $13::text[], $14::text[])
         AS u(fk, et, tk, vf, vt, ra, ea, er, eb)
"""


def edges_sql(sql: GraphSql) -> str:
    """$1..$3 scope; $4 from keys; $5 edge types → the groups' edges at that scope, one row
    per evidence chunk found and per source's assertion (``edge_sources``: its times and
    source; none: one row of nulls), with the edge's validity properties."""
    validity = ", ".join(f"'{name}', {prop('r', name)}" for name in VALIDITY)
    return f"""
        SELECT r.id, g.fk AS from_key, g.et AS edge_type, {prop("e", "key")} AS to_key,
               r.evidence::text AS evidence, jsonb_build_object({validity})::text AS validity,
               c.id AS chunk_id, coalesce(c.observed_at, c.created_at) AS observed,
               c.created_at, c.source_urn
        FROM unnest($4::text[], $5::text[]) AS g(fk, et)
        CROSS JOIN LATERAL (
            SELECT s.id FROM {sql.vertices} s
            WHERE {sql.scope_match("s", 1)} AND {prop("s", "key")} = g.fk OFFSET 0) s
        CROSS JOIN LATERAL (
            SELECT r.id, r.end_id, r.properties,
                   {as_jsonb("r.properties")} -> 'evidenceChunkIds' AS evidence,
                   coalesce({as_jsonb("r.properties")} -> '{ASSERTIONS}', '{{}}') AS asserted
            FROM {sql.edges} r WHERE r.start_id = s.id OFFSET 0) r
        CROSS JOIN LATERAL (
            SELECT e.properties FROM {sql.vertices} e WHERE e.id = r.end_id OFFSET 0) e
        LEFT JOIN LATERAL (
            SELECT c.id, c.observed_at, c.created_at, c.source_urn
            FROM jsonb_array_elements_text(r.evidence) AS x(id)
            JOIN chunks c ON c.client_id = $1 AND c.id = x.id
            UNION ALL
            SELECT a.key, (a.value ->> 'observedAt')::timestamptz,
                   (a.value ->> 'assertedAt')::timestamptz, a.value ->> 'sourceUrn'
            FROM jsonb_each(r.asserted) AS a) c ON true
        WHERE {prop("r", "edgeType")} = g.et AND {sql.scope_match("r", 1)}
        ORDER BY r.id, c.id
    """


def set_validity_sql(sql: GraphSql) -> str:
    """$1 edge ids, $2 their validity properties (jsonb[]), replacing the old ones."""
    drop = " - ".join(f"'{name}'" for name in VALIDITY)
    return f"""
        UPDATE {sql.edges} r
        SET properties = {to_agtype(f"({as_jsonb('r.properties')} - {drop}) || u.props")}
        FROM unnest($1::ag_catalog.graphid[], $2::jsonb[]) AS u(id, props)
        WHERE r.id = u.id
    """


def mark_chunks_sql(sql: GraphSql) -> str:
    """$1..$3 scope; $4 chunk ids → the chunks whose every edge has ended marked superseded,
    those with a current edge again unmarked (a mark of kind ``source`` stays)."""
    evidence = f"({as_jsonb('r.properties')} -> 'evidenceChunkIds')"
    return f"""
        WITH c AS MATERIALIZED (
            SELECT c.id, c.graph_refs FROM chunks c
            WHERE c.client_id = $1 AND c.id = ANY($4::text[])
        ),
        cited AS MATERIALIZED (
            SELECT c.id,
                   bool_and({prop("r", "validTo")} IS NOT NULL) AS ended,
                   max({prop("r", "endedAt")}) AS ended_at,
                   (array_agg({prop("r", "endedBy")} ORDER BY {prop("r", "endedAt")} DESC
                    NULLS LAST))[1] AS ended_by
            FROM c
            CROSS JOIN LATERAL unnest(c.graph_refs) AS k(key)
            CROSS JOIN LATERAL (
                SELECT v.id FROM {sql.vertices} v
                WHERE {sql.scope_match("v", 1)} AND {prop("v", "key")} = k.key OFFSET 0) v
            CROSS JOIN LATERAL (
                SELECT r.properties FROM {sql.edges} r WHERE r.start_id = v.id OFFSET 0) r
            WHERE {evidence} ? c.id
            GROUP BY c.id
        ),
        held AS (
            DELETE FROM chunk_marks m USING cited
            WHERE m.client_id = $1 AND m.chunk_id = cited.id AND NOT cited.ended
              AND m.kind = 'edges'
        )
        INSERT INTO chunk_marks (client_id, chunk_id, superseded_at, superseded_by, kind)
        SELECT $1, cited.id, cited.ended_at::timestamptz, coalesce(cited.ended_by, ''), 'edges'
        FROM cited WHERE cited.ended
        ON CONFLICT (client_id, chunk_id) DO NOTHING
        """
