"""Merging an alias vertex into its canonical vertex, in every scope of one client."""

from __future__ import annotations

from kenning.domain.ingestion.edge_sources import ASSERTIONS, SOURCE_PROPERTIES
from kenning.storage.db.agtype import as_jsonb, prop, to_agtype
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.alias_guard import lock_alias_keys
from kenning.storage.ingestion.graph_write_sql import GraphSql, united_map
from kenning.storage.ingestion.node_versions import rekey_versions


def _unite_duplicates(sql: GraphSql, side: str, other: str) -> str:
    """Edges of the alias ($1) that the canonical ($2) already has on the same ``side``:
    give their evidence, assertions and sources' properties to the canonical edge."""
    united = (
        f"(SELECT jsonb_agg(DISTINCT x ORDER BY x) FROM jsonb_array_elements_text("
        f"({as_jsonb('c.properties')} -> 'evidenceChunkIds') || "
        f"({as_jsonb('a.properties')} -> 'evidenceChunkIds')) AS x)"
    )
    canonical, alias = as_jsonb("c.properties"), as_jsonb("a.properties")
    return f"""
        UPDATE {sql.edges} c
        SET properties = {
        to_agtype(
            f"jsonb_set({canonical}, '{{evidenceChunkIds}}', {united})"
            f" || {united_map(ASSERTIONS, canonical, alias)}"
            f" || {united_map(SOURCE_PROPERTIES, canonical, alias)}"
        )
    }
        FROM {sql.edges} a
        WHERE a.{side} = $1 AND c.{side} = $2 AND a.{other} = c.{other}
          AND {prop("a", "edgeType")} = {prop("c", "edgeType")}
    """


def _drop_duplicates(sql: GraphSql, side: str, other: str) -> str:
    return f"""
        DELETE FROM {sql.edges} a USING {sql.edges} c
        WHERE a.{side} = $1 AND c.{side} = $2 AND a.{other} = c.{other}
          AND {prop("a", "edgeType")} = {prop("c", "edgeType")}
    """


async def merge_alias(
    conn: Connection, sql: GraphSql, client_id: str, alias_key: str, canonical_key: str
) -> int:
    """Re-key ``alias_key`` to ``canonical_key`` for one client: in each scope, the alias
    vertex's edges move to the canonical vertex (evidence united where both had the edge,
    alias↔canonical edges dropped as self-loops) and the alias vertex goes; chunk refs,
    mentions and the alias's property history follow. Returns the number of scopes where a
    vertex was merged or renamed."""
    # Before reading the graph: ingests holding either key commit first, later ones wait
    # for this merge and then read its alias (see ``alias_guard``).
    await lock_alias_keys(conn, client_id, (alias_key, canonical_key))
    pairs = await conn.fetch(
        f"""SELECT a.id AS alias_id, c.id AS canonical_id, {prop("a", "project")} AS project,
                   {prop("a", "group")} AS grp
            FROM {sql.vertices} a
            LEFT JOIN {sql.vertices} c
              ON {prop("c", "client")} = $1 AND {prop("c", "key")} = $3
             AND {prop("c", "project")} = {prop("a", "project")}
             AND {prop("c", "group")} = {prop("a", "group")}
            WHERE {prop("a", "client")} = $1 AND {prop("a", "key")} = $2
            ORDER BY 3, 4""",
        client_id,
        alias_key,
        canonical_key,
    )
    for pair in pairs:
        alias_id, canonical_id = pair["alias_id"], pair["canonical_id"]
        if canonical_id is None:
            await _rename_vertex(conn, sql, alias_id, canonical_key)
        else:
            await _merge_vertex(conn, sql, alias_id, canonical_id)
    await _move_references(conn, client_id, alias_key, canonical_key)
    await rekey_versions(conn, client_id, alias_key, canonical_key)
    await _rekey_timelines(conn, client_id, alias_key, canonical_key)
    return len(pairs)


async def merged_groups(
    conn: Connection, sql: GraphSql, client_id: str, canonical_key: str
) -> dict[tuple[str, str, str], set[tuple[str, str]]]:
    """The (scope, from key, relation) groups of the canonical vertex's edges, both ways:
    after a merge they may hold two current values of a ONE relation, or an ending said
    of the alias, so their timelines are settled again before the merge commits."""
    rows = await conn.fetch(
        f"""SELECT DISTINCT {prop("f", "project")} AS project, {prop("f", "group")} AS grp,
                   {prop("f", "key")} AS from_key, {prop("e", "edgeType")} AS edge_type
            FROM {sql.edges} e
            JOIN {sql.vertices} f ON f.id = e.start_id
            JOIN {sql.vertices} t ON t.id = e.end_id
            WHERE {prop("f", "client")} = $1
              AND ({prop("f", "key")} = $2 OR {prop("t", "key")} = $2)""",
        client_id,
        canonical_key,
    )
    groups: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    for r in rows:
        groups.setdefault((client_id, r["project"], r["grp"]), set()).add(
            (r["from_key"], r["edge_type"])
        )
    return groups


async def _rekey_timelines(
    conn: Connection, client_id: str, alias_key: str, canonical_key: str
) -> None:
    """Endings and intervals said of the alias key hold for the canonical key (a
    retraction of the alias's edge stays a retraction of the merged edge)."""
    for table in ("edge_endings", "edge_intervals"):
        for column in ("from_key", "to_key"):
            await conn.execute(
                f"UPDATE {table} SET {column} = $3 WHERE client_id = $1 AND {column} = $2",
                client_id,
                alias_key,
                canonical_key,
            )


async def _rename_vertex(
    conn: Connection, sql: GraphSql, alias_id: int, canonical_key: str
) -> None:
    # No canonical vertex in this scope: renaming the alias vertex is the whole merge.
    await conn.execute(
        f"""UPDATE {sql.vertices} SET properties = {
            to_agtype(
                f"{as_jsonb('properties')} || jsonb_build_object('key', $2::text, "
                "'type', split_part($2::text, ':', 1))"
            )
        }
            WHERE id = $1""",
        alias_id,
        canonical_key,
    )


async def _merge_vertex(conn: Connection, sql: GraphSql, alias_id: int, canonical_id: int) -> None:
    for side, other in (("start_id", "end_id"), ("end_id", "start_id")):
        await conn.execute(_unite_duplicates(sql, side, other), alias_id, canonical_id)
        await conn.execute(_drop_duplicates(sql, side, other), alias_id, canonical_id)
    # What is left between alias and canonical would become a self-loop: drop it.
    await conn.execute(
        f"""DELETE FROM {sql.edges} WHERE (start_id = $1 AND end_id = $2)
            OR (start_id = $2 AND end_id = $1)""",
        alias_id,
        canonical_id,
    )
    await conn.execute(
        f"UPDATE {sql.edges} SET start_id = $2 WHERE start_id = $1",
        alias_id,
        canonical_id,
    )
    await conn.execute(
        f"UPDATE {sql.edges} SET end_id = $2 WHERE end_id = $1",
        alias_id,
        canonical_id,
    )
    # The canonical vertex keeps its own properties where both have one.
    await conn.execute(
        f"""UPDATE {sql.vertices} c SET properties = {
            to_agtype(f"{as_jsonb('a.properties')} || {as_jsonb('c.properties')}")
        }
            FROM {sql.vertices} a WHERE a.id = $1 AND c.id = $2""",
        alias_id,
        canonical_id,
    )
    await conn.execute(f"DELETE FROM {sql.vertices} WHERE id = $1", alias_id)


async def _move_references(
    conn: Connection, client_id: str, alias_key: str, canonical_key: str
) -> None:
    """Chunk refs and source mentions of the alias key name the canonical key instead."""
    await conn.execute(
        """UPDATE chunks SET graph_refs = ARRAY(
               SELECT DISTINCT r FROM unnest(array_replace(graph_refs, $2, $3)) AS r ORDER BY r)
           WHERE client_id = $1 AND graph_refs @> ARRAY[$2]::text[]""",
        client_id,
        alias_key,
        canonical_key,
    )
    await conn.execute(
        """INSERT INTO source_mentions (client_id, project_id, group_id, source_urn, node_key)
           SELECT client_id, project_id, group_id, source_urn, $3 FROM source_mentions
           WHERE client_id = $1 AND node_key = $2
           ON CONFLICT DO NOTHING""",
        client_id,
        alias_key,
        canonical_key,
    )
    await conn.execute(
        "DELETE FROM source_mentions WHERE client_id = $1 AND node_key = $2", client_id, alias_key
    )
