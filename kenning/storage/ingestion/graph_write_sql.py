"""SQL over AGE's label tables, built by small functions; values are always parameters.

Cypher ``MERGE`` in AGE 1.5 finds existing vertices by sequential scan, so writes go to the
label tables directly: ``"Entity"`` (vertices) and ``"REL"`` (edges, the type in the
``edgeType`` property), with the unique expression indexes of migration 0001 making every
upsert an index lookup. The only identifier spliced in is the graph name, which passed the
settings whitelist and is re-checked here. The agtype fragments live in ``storage/db/agtype.py``.
"""

from __future__ import annotations

from kenning.domain.ingestion.edge_sources import ASSERTIONS, SOURCE_PROPERTIES
from kenning.storage.db.agtype import GRAPH_NAME, as_jsonb, iso_text, prop, to_agtype
from kenning.storage.ingestion.node_versions import end_deleted_sql


def united_map(name: str, existing: str, given: str) -> str:
    """The per-source map ``name`` (a constant) of both edges, entry by entry (the given
    edge's entries win), or nothing when neither has it."""
    return (
        f"(CASE WHEN {existing} ? '{name}' OR {given} ? '{name}' THEN jsonb_build_object("
        f"'{name}', coalesce({existing} -> '{name}', '{{}}') || "
        f"coalesce({given} -> '{name}', '{{}}')) ELSE '{{}}'::jsonb END)"
    )


def _without(name: str, current: str) -> str:
    """The per-source map ``name`` (a constant) without the entries of the ids in ``$5``."""
    return (
        f"(CASE WHEN {current} ? '{name}' THEN jsonb_build_object('{name}', "
        f"({current} -> '{name}') - $5::text[]) ELSE '{{}}'::jsonb END)"
    )


class GraphSql:
    """The statements of one graph."""

    def __init__(self, graph: str) -> None:
        if not GRAPH_NAME.match(graph):
            raise ValueError(f"graph name {graph!r} is not a plain identifier")
        self.graph = graph
        self.vertices = f'{graph}."Entity"'
        self.edges = f'{graph}."REL"'

    def scope_match(self, alias: str, first: int) -> str:
        """Predicate: vertex or edge ``alias`` lies in the scope given as ``$first..+2``."""
        return (
            f"{prop(alias, 'client')} = ${first} AND {prop(alias, 'project')} = ${first + 1} "
            f"AND {prop(alias, 'group')} = ${first + 2}"
        )

    def existing_keys(self) -> str:
        """$1..$3 scope; $4 keys. The keys that exist as vertices."""
        return f"""
            SELECT {prop("v", "key")} AS key FROM {self.vertices} v
            WHERE {self.scope_match("v", 1)} AND {prop("v", "key")} = ANY($4::text[])
        """

    def lock_keys(self, *, exclusive: bool) -> str:
        """$1..$3 scope; $4 keys (sorted by the caller). Transaction-level advisory locks per
        (scope, key): writers that mention a key take them shared, so they never queue
        behind each other; orphan deletion takes them exclusive, so it waits for those
        writers to commit and then sees their mentions and edges."""
        fn = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
        return f"""
            SELECT count({fn}(hashtextextended(
                $1::text || chr(31) || $2::text || chr(31) || $3::text || chr(31) || u.k, 7)))
            FROM unnest($4::text[]) AS u(k)
        """

    def insert_vertices(self, *, merge_properties: bool, fill: bool = False) -> str:
        """$1..$3 scope; $4 keys; $5 types; $6 property maps (jsonb[]). With
        ``merge_properties`` an existing vertex takes the given properties (scope, key and
        type always win); with ``fill`` it takes only those it lacks (defaults); with
        neither, an existing vertex is left alone and not even locked, so concurrent
        writers mentioning the same popular node do not queue."""
        existing, given = as_jsonb(f"{self.vertices}.properties"), as_jsonb("EXCLUDED.properties")
        if merge_properties or fill:
            merged = f"{given} || {existing}" if fill else f"{existing} || {given}"
            on_conflict = "DO UPDATE SET properties = " + to_agtype(merged)
        else:
            on_conflict = "DO NOTHING"
        return f"""
            INSERT INTO {self.vertices} (properties)
            SELECT {
            to_agtype(
                "u.props || jsonb_build_object("
                "'key', u.k, 'type', u.t, 'client', $1::text, "
                "'project', $2::text, 'group', $3::text)"
            )
        }
            FROM unnest($4::text[], $5::text[], $6::jsonb[]) AS u(k, t, props)
            ORDER BY u.k
            ON CONFLICT ({prop("", "client")}, {prop("", "project")}, {prop("", "group")},
                         {prop("", "key")})
            {on_conflict}
        """

    def upsert_vertices_changed(self, *, fill: bool) -> str:
        """``insert_vertices`` merging the given properties (``fill``: only those a vertex
        lacks), returning each vertex written: its ``key`` and its properties before
        (``old``, null when new) and after (``new``), as jsonb text. The writer holds the
        keys' property locks, so ``old`` is what the write replaced."""
        merged = self.insert_vertices(merge_properties=not fill, fill=fill)
        return f"""
            WITH old AS MATERIALIZED (
                SELECT {prop("v", "key")} AS key, {as_jsonb("v.properties")} AS props
                FROM {self.vertices} v
                WHERE {self.scope_match("v", 1)} AND {prop("v", "key")} = ANY($4::text[])
            ),
            up AS ({merged}
                RETURNING {prop("", "key")} AS key, {as_jsonb("properties")} AS props)
            SELECT up.key, old.props::text AS old, up.props::text AS new
            FROM up LEFT JOIN old ON old.key = up.key
        """

    def _vertex_by_key(self, alias: str, key: str) -> str:
        """The id of the vertex of scope ``$1..$3`` whose key is ``key``: one probe of the
        unique scope-and-key index per row. ``OFFSET 0`` keeps it a subquery run per key:
        as a plain join, statistics counted while a project was new (no vertices) made
        PostgreSQL read the scope's every vertex per batch and match keys in a join filter,
        a cost that grew with the scope (30-40 ms a batch at 800 vertices)."""
        return (
            f"SELECT {alias}.id FROM {self.vertices} {alias} "
            f"WHERE {self.scope_match(alias, 1)} AND {prop(alias, 'key')} = {key} OFFSET 0"
        )

    def upsert_edges(self) -> str:
        """$1..$3 scope; $4 from keys; $5 edge types; $6 to keys; $7 evidence (jsonb[]);
        $8 other properties (jsonb[]: provenance), which fill what an existing edge lacks,
        but for the per-source maps (``assertions``, ``sourceProperties``), united entry by
        entry. A new edge is recorded now and valid from its ``validFrom`` property (now when
        absent); an existing one keeps the earlier ``validFrom`` of the two."""
        # Parenthesized: `->` and `||` share one precedence level in PostgreSQL.
        existing, given = as_jsonb(f"{self.edges}.properties"), as_jsonb("EXCLUDED.properties")
        evidence = f"({as_jsonb(f'{self.edges}.properties')} -> 'evidenceChunkIds')"
        added = f"({as_jsonb('EXCLUDED.properties')} -> 'evidenceChunkIds')"
        now = iso_text("now()")
        earliest = (
            f"least({as_jsonb(f'{self.edges}.properties')} ->> 'validFrom', "
            f"{as_jsonb('EXCLUDED.properties')} ->> 'validFrom')"
        )
        return f"""
            INSERT INTO {self.edges} (start_id, end_id, properties)
            SELECT s.id, e.id, {
            to_agtype(
                f"jsonb_build_object('validFrom', {now}, 'recordedAt', {now}) || "
                "u.pr || jsonb_build_object('edgeType', u.et, 'client', $1::text, "
                "'project', $2::text, 'group', $3::text, 'evidenceChunkIds', u.ev)"
            )
        }
            FROM unnest($4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[])
                 AS u(fk, et, tk, ev, pr)
            CROSS JOIN LATERAL ({self._vertex_by_key("s", "u.fk")}) s
            CROSS JOIN LATERAL ({self._vertex_by_key("e", "u.tk")}) e
            ORDER BY u.fk, u.et, u.tk
            ON CONFLICT (start_id, {prop("", "edgeType")}, end_id)
            DO UPDATE SET properties = {
            to_agtype(
                f"jsonb_set({as_jsonb('EXCLUDED.properties')} || "
                f"{as_jsonb(f'{self.edges}.properties')}, '{{evidenceChunkIds}}', "
                f"(SELECT jsonb_agg(DISTINCT x ORDER BY x) FROM jsonb_array_elements_text("
                f"{evidence} || {added}) AS x)) || jsonb_build_object('validFrom', {earliest})"
                f" || {united_map(ASSERTIONS, existing, given)}"
                f" || {united_map(SOURCE_PROPERTIES, existing, given)}"
            )
        }
        """

    def strip_evidence(self) -> str:
        """$1..$3 scope; $4 keys whose outgoing edges may cite $5 evidence ids (chunks, and
        sources' assertions). Removes the ids from those edges, and the sources' entries from
        their per-source maps; returns each touched edge's id and how much evidence is left."""
        evidence = f"{as_jsonb('r.properties')} -> 'evidenceChunkIds'"
        kept = (
            f"(SELECT coalesce(jsonb_agg(x ORDER BY x), '[]'::jsonb) FROM "
            f"jsonb_array_elements_text({evidence}) AS x WHERE NOT (x = ANY($5::text[])))"
        )
        current = as_jsonb("r.properties")
        return f"""
            UPDATE {self.edges} AS r
            SET properties = {
            to_agtype(
                f"jsonb_set({current}, '{{evidenceChunkIds}}', {kept})"
                f" || {_without(ASSERTIONS, current)} || {_without(SOURCE_PROPERTIES, current)}"
            )
        }
            FROM {self.vertices} v
            WHERE {self.scope_match("v", 1)} AND {prop("v", "key")} = ANY($4::text[])
              AND r.start_id = v.id
              AND ({evidence}) ?| $5::text[]
            RETURNING r.id AS id,
                      jsonb_array_length({as_jsonb("r.properties")} -> 'evidenceChunkIds') AS left,
                      {prop("v", "key")} AS from_key, {prop("r", "edgeType")} AS edge_type
        """

    def delete_edges_without_evidence(self) -> str:
        """$1 edge ids to delete when their evidence list is empty."""
        return f"""
            DELETE FROM {self.edges} r
            WHERE r.id = ANY($1::ag_catalog.graphid[])
              AND jsonb_array_length({as_jsonb("r.properties")} -> 'evidenceChunkIds') = 0
        """

    def delete_orphans(self) -> str:
        """$1..$3 scope; $4 candidate keys. Deletes those no source mentions and no edge
        touches, ends their properties' current versions; returns how many went."""
        return f"""
            WITH gone AS (
            DELETE FROM {self.vertices} v
            WHERE {self.scope_match("v", 1)} AND {prop("v", "key")} = ANY($4::text[])
              AND NOT EXISTS (
                SELECT 1 FROM source_mentions m
                WHERE m.client_id = $1 AND m.project_id = $2 AND m.group_id = $3
                  AND m.node_key = {prop("v", "key")})
              AND NOT EXISTS (SELECT 1 FROM {self.edges} r WHERE r.start_id = v.id)
              AND NOT EXISTS (SELECT 1 FROM {self.edges} r WHERE r.end_id = v.id)
            RETURNING {prop("v", "key")} AS key
            ),
            ended AS ({end_deleted_sql()})
            SELECT count(*) FROM gone
        """
