"""SQL of the erasure over AGE's label tables, client-wide (every project and group).

Vertices and edges are found by their ``client`` property; ids never leave the database
(asyncpg has no codec for ``graphid``), so each statement names what it acts on by key.
"""

from __future__ import annotations

from kenning.storage.db.agtype import as_jsonb, prop, to_agtype
from kenning.storage.ingestion.graph_write_sql import GraphSql


def _evidence(alias: str) -> str:
    return f"({as_jsonb(f'{alias}.properties')} -> 'evidenceChunkIds')"


def subject_vertices(sql: GraphSql) -> str:
    """$1 client; $2 keys; $3 LIKE patterns. Key and properties of the client's vertices
    whose key is one of $2 or reads like one of $3 (the caller confirms)."""
    return f"""
        SELECT {prop("v", "key")} AS key, {as_jsonb("v.properties")}::text AS properties
        FROM {sql.vertices} v
        WHERE {prop("v", "client")} = $1
          AND ({prop("v", "key")} = ANY($2::text[]) OR {prop("v", "key")} ILIKE ANY($3::text[]))
    """


def touching_edges(sql: GraphSql) -> str:
    """$1 client; $2 keys. Scope, from key and type of each edge touching those vertices."""
    return f"""
        SELECT {prop("r", "project")} AS project, {prop("r", "group")} AS "group",
               {prop("s", "key")} AS from_key, {prop("r", "edgeType")} AS edge_type
        FROM {sql.edges} r
        JOIN {sql.vertices} s ON s.id = r.start_id
        JOIN {sql.vertices} t ON t.id = r.end_id
        WHERE {prop("r", "client")} = $1
          AND ({prop("s", "key")} = ANY($2::text[]) OR {prop("t", "key")} = ANY($2::text[]))
    """


def delete_touching_edges(sql: GraphSql) -> str:
    """$1 client; $2 keys. Deletes every edge of the client touching those vertices."""
    return f"""
        DELETE FROM {sql.edges} r
        USING {sql.vertices} v
        WHERE {prop("v", "client")} = $1 AND {prop("v", "key")} = ANY($2::text[])
          AND (r.start_id = v.id OR r.end_id = v.id)
    """


def delete_vertices(sql: GraphSql) -> str:
    """$1 client; $2 keys. Deletes those vertices in every scope of the client."""
    return f"""
        DELETE FROM {sql.vertices} v
        WHERE {prop("v", "client")} = $1 AND {prop("v", "key")} = ANY($2::text[])
    """


def strip_evidence(sql: GraphSql) -> str:
    """$1 client; $2 chunk ids. Removes the ids from every edge of the client citing them;
    returns each touched edge's scope, from key and type."""
    kept = (
        f"(SELECT coalesce(jsonb_agg(x ORDER BY x), '[]'::jsonb) FROM "
        f"jsonb_array_elements_text({_evidence('r')}) AS x WHERE NOT (x = ANY($2::text[])))"
    )
    return f"""
        UPDATE {sql.edges} AS r
        SET properties = {
        to_agtype(f"jsonb_set({as_jsonb('r.properties')}, '{{evidenceChunkIds}}', {kept})")
    }
        WHERE {prop("r", "client")} = $1 AND {_evidence("r")} ?| $2::text[]
        RETURNING {prop("r", "project")} AS project, {prop("r", "group")} AS "group",
                  {prop("r", "edgeType")} AS edge_type,
                  (SELECT {prop("s", "key")} FROM {sql.vertices} s WHERE s.id = r.start_id)
                  AS from_key
    """


def delete_edges_without_evidence(sql: GraphSql) -> str:
    """$1 client. Deletes the client's edges left with no evidence."""
    return f"""
        DELETE FROM {sql.edges} r
        WHERE {prop("r", "client")} = $1 AND jsonb_array_length({_evidence("r")}) = 0
    """


def properties_naming(table: str) -> str:
    """$1 client; $2 LIKE patterns. ctid and properties (as JSON text) of the label table's
    rows of the client whose properties read like a pattern."""
    return f"""
        SELECT x.ctid::text AS at, {as_jsonb("x.properties")}::text AS properties
        FROM {table} x
        WHERE {prop("x", "client")} = $1
          AND {as_jsonb("x.properties")}::text ILIKE ANY($2::text[])
        FOR UPDATE
    """


def set_properties(table: str) -> str:
    """$1 ctid; $2 properties (JSON text)."""
    return f"UPDATE {table} SET properties = {to_agtype('$2::jsonb')} WHERE ctid = $1::text::tid"
