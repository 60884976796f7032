"""SQL text of the graph's read side, built by small functions; values are parameters.

Every statement takes the reader's scope as ``$1..$3`` and filters every vertex and edge it
touches with ``visible_graph``.

**Plans are spelled out.** Each step is a fenced lookup (a ``MATERIALIZED`` CTE or a
``LATERAL`` subquery with ``OFFSET 0``) holding nothing but its index condition: vertices by
key (``ix_entity_key``), edges by ``start_id``/``end_id`` (``ix_rel_start``/``ix_rel_end``),
the other vertex by id (``ix_entity_id``, migration 0004), chunks by reference (the GIN
index on ``graph_refs``). The scope predicate is applied outside the fence. Left to itself,
the planner was seen (on tables not analyzed yet) to drive from the scope columns instead:
every vertex of the client, then each key inside a loop, 14 s for 50 nodes instead of 1 ms.

An edge touching a node is found from each end by its own index. With direction BOTH the
incoming branch skips edges already found from their start (a self-loop, an edge between
two vertices of one key at different scopes, or, for a frontier, an edge inside it).
"""

from __future__ import annotations

from enum import Enum
from functools import cache

from kenning.domain.graph.model import Direction
from kenning.domain.ingestion.edge_sources import ASSERTIONS, SOURCE_PROPERTIES
from kenning.storage.db.agtype import prop
from kenning.storage.db.visibility import visible_graph, visible_rows
from kenning.storage.graph.chunk_reads import CHUNK_COLUMNS, MARK_COLUMNS, marks_join
from kenning.storage.ingestion.graph_write_sql import GraphSql

_META = ("key", "type", "client", "project", "group")
_EDGE_ORDER = "e.edge_type, e.from_key, e.to_key, e.id"
_VALIDITY = (
    ("validFrom", "valid_from"),
    ("validTo", "valid_to"),
    ("recordedAt", "recorded_at"),
    ("endedAt", "ended_at"),
    ("endedReason", "ended_reason"),
    ("endedBy", "ended_by"),
)


# What each source says of an edge beyond its text (``edge_sources``), as JSON text.
_SOURCED = ((ASSERTIONS, "assertions"), (SOURCE_PROPERTIES, "source_properties"))


def _key(alias: str) -> str:
    return prop(alias, "key")


def _visible(*aliases: str) -> str:
    return " AND ".join(f"({visible_graph(alias, 1)})" for alias in aliases)


def _edge_columns(from_key: str, to_key: str, *, lean: bool) -> str:
    columns = [
        "r.id AS id",
        f"{prop('r', 'edgeType')} AS edge_type",
        f"{from_key} AS from_key",
        f"{to_key} AS to_key",
    ]
    if not lean:
        columns += [
            f"{prop('r', 'client')} AS client",
            f"{prop('r', 'project')} AS project",
            f"{prop('r', 'group')} AS grp",
            "ag_catalog.agtype_out(r.properties OPERATOR(ag_catalog.->) "
            "'evidenceChunkIds'::text)::text AS evidence",
            *(
                f"ag_catalog.agtype_out(r.properties OPERATOR(ag_catalog.->) "
                f"'{name}'::text)::text AS {column}"
                for name, column in _SOURCED
            ),
            f"{prop('r', 'extractedBy')} AS extracted_by",
            f"{prop('r', 'confidence')} AS extraction_confidence",
            *(f"{prop('r', name)} AS {column}" for name, column in _VALIDITY),
        ]
    return ", ".join(columns)


def _types(typed: bool) -> str:
    return f" AND {prop('r', 'edgeType')} = ANY($6::text[])" if typed else ""


class Validity(Enum):
    """Which edges a statement reads: those that hold now, those that held at the time in
    its last parameter, or every edge, ended ones included (histories, and benchmarks'
    baseline of what the filter costs)."""

    NOW = "now"
    AT = "at"
    EVERY = "every"


def _valid(validity: Validity, param: int, from_key: str, to_key: str) -> str:
    """Edge ``r`` held now, or at the time in parameter ``$param`` (fixed-width UTC text):
    by its latest interval, else by an earlier one kept in ``edge_intervals``."""
    if validity is Validity.EVERY:
        return ""
    if validity is Validity.NOW:
        return f" AND {prop('r', 'validTo')} IS NULL"
    at, until = f"${param}::text", prop("r", "validTo")
    return f"""
        AND (({prop("r", "validFrom")} <= {at} AND ({until} IS NULL OR {at} < {until}))
             OR EXISTS (
                SELECT 1 FROM edge_intervals i
                WHERE i.client_id = {prop("r", "client")} AND i.project_id = {prop("r", "project")}
                  AND i.group_id = {prop("r", "group")} AND i.from_key = {from_key}
                  AND i.edge_type = {prop("r", "edgeType")} AND i.to_key = {to_key}
                  AND i.valid_from <= {at}::timestamptz
                  AND (i.valid_to IS NULL OR {at}::timestamptz < i.valid_to)))
    """


@cache
def graph_read_sql(graph: str) -> GraphReadSql:
    """The statement builder of ``graph``, one per process, so its per-shape caches hold."""
    return GraphReadSql(graph)


class GraphReadSql:
    """The read statements of one graph (each shape built once; see ``graph_read_sql``)."""

    def __init__(self, graph: str) -> None:
        names = GraphSql(graph)
        self.vertices = names.vertices
        self.edges = names.edges

    def _keyed(self) -> str:
        """CTEs ``f`` (every vertex of the keys in $4) and ``fv`` (the visible ones)."""
        return f"""
            f AS MATERIALIZED (
                SELECT v.id, {_key("v")} AS key, v.properties FROM {self.vertices} v
                WHERE {_key("v")} = ANY($4::text[])
            ),
            fv AS (SELECT f.id, f.key FROM f WHERE {_visible("f")})
        """

    def _vertex_by_id(self, alias: str, graph_id: str) -> str:
        return (
            f"CROSS JOIN LATERAL (SELECT {alias}.properties FROM {self.vertices} {alias} "
            f"WHERE {alias}.id = {graph_id} OFFSET 0) {alias}"
        )

    def _edges_at(self, column: str, graph_id: str) -> str:
        return (
            f"CROSS JOIN LATERAL (SELECT r.id, r.start_id, r.end_id, r.properties "
            f"FROM {self.edges} r WHERE r.{column} = {graph_id} OFFSET 0) r"
        )

    def _touching(
        self,
        direction: Direction,
        *,
        typed: bool,
        lean: bool,
        per_node: bool,
        validity: Validity,
        when: int = 0,
    ) -> str:
        """Edge rows (with ``node_key``) touching the vertices of ``fv``, of ``validity``
        (for ``Validity.AT`` the time is parameter ``$when``, by default the one after $4
        keys, $5 limit and $6 types when ``typed``); ``per_node`` lists an edge under each
        of its ends, otherwise once for the whole set."""
        when = when or (7 if typed else 6)
        out_valid = _valid(validity, when, "fv.key", _key("b"))
        in_valid = _valid(validity, when, _key("a"), "fv.key")
        out = f"""
            SELECT fv.key AS node_key, {_edge_columns("fv.key", _key("b"), lean=lean)}
            FROM fv {self._edges_at("start_id", "fv.id")} {self._vertex_by_id("b", "r.end_id")}
            WHERE {_visible("r", "b")}{_types(typed)}{out_valid}
        """
        skip = ""
        if direction is Direction.BOTH and per_node:
            skip = f" AND {_key('a')} <> fv.key"
        elif direction is Direction.BOTH:
            # NOT IN runs as a hashed subplan; NOT EXISTS was planned as a nested-loop
            # anti-join rescanning the frontier for every edge (quadratic on big frontiers).
            skip = " AND r.start_id NOT IN (SELECT s.id FROM fv s)"
        into = f"""
            SELECT fv.key AS node_key, {_edge_columns(_key("a"), "fv.key", lean=lean)}
            FROM fv {self._edges_at("end_id", "fv.id")} {self._vertex_by_id("a", "r.start_id")}
            WHERE {_visible("r", "a")}{_types(typed)}{skip}{in_valid}
        """
        if direction is Direction.OUT:
            return out
        if direction is Direction.IN:
            return into
        return f"{out} UNION ALL {into}"

    @cache  # noqa: B019 - one instance per graph (graph_read_sql), a handful of shapes
    def nodes_by_keys(self) -> str:
        """$4 keys → (key, type, client, project, grp, props) per visible vertex."""
        strip = "".join(f" - '{name}'" for name in _META)
        return f"""
            WITH {self._keyed()}
            SELECT f.key, {prop("f", "type")} AS type, {prop("f", "client")} AS client,
                   {prop("f", "project")} AS project, {prop("f", "group")} AS grp,
                   ((ag_catalog.agtype_out(f.properties)::text::jsonb){strip})::text AS props
            FROM f WHERE {_visible("f")}
        """

    @cache  # noqa: B019
    def edges_of_nodes(
        self, direction: Direction, typed: bool, validity: Validity = Validity.NOW
    ) -> str:
        """$4 node keys, $5 per-node limit, $6 edge types when ``typed``, then the read's
        time for ``Validity.AT`` → edge rows with ``node_key``, at most $5 per key, each
        key's ordered by (type, from, to, id)."""
        touching = self._touching(
            direction, typed=typed, lean=False, per_node=True, validity=validity
        )
        return f"""
            WITH {self._keyed()}, e AS ({touching})
            SELECT * FROM (
                SELECT e.*, row_number() OVER (PARTITION BY e.node_key ORDER BY {_EDGE_ORDER})
                       AS rank
                FROM e
            ) ranked
            WHERE ranked.rank <= $5
            ORDER BY ranked.node_key, ranked.rank
        """

    @cache  # noqa: B019
    def degrees(self, validity: Validity = Validity.NOW) -> str:
        """$4 node keys, $5 the read's time for ``Validity.AT`` → (key, degree): visible
        edges touching each, each edge once."""
        touching = self._touching(
            Direction.BOTH, typed=False, lean=True, per_node=True, validity=validity, when=5
        )
        return f"""
            WITH {self._keyed()}, e AS ({touching})
            SELECT e.node_key AS key, count(*) AS degree FROM e GROUP BY e.node_key
        """

    @cache  # noqa: B019
    def frontier_edges(
        self, direction: Direction, typed: bool, lean: bool, validity: Validity = Validity.NOW
    ) -> str:
        """$4 frontier keys, $5 limit, $6 edge types when ``typed``, then the read's time
        for ``Validity.AT`` → at most $5 edges that touch the frontier, each once, ordered
        by (type, from, to, id)."""
        touching = self._touching(
            direction, typed=typed, lean=lean, per_node=False, validity=validity
        )
        return f"""
            WITH {self._keyed()}, e AS ({touching})
            SELECT * FROM e ORDER BY {_EDGE_ORDER} LIMIT $5
        """

    @cache  # noqa: B019
    def edges_by_ids(self, validity: Validity = Validity.NOW) -> str:
        """$4 edge ids, $5 the read's time for ``Validity.AT`` → the visible ones among them
        of that validity, with both vertices visible."""
        valid = _valid(validity, 5, _key("a"), _key("b"))
        return f"""
            SELECT {_edge_columns(_key("a"), _key("b"), lean=False)}
            FROM (SELECT r.id, r.start_id, r.end_id, r.properties FROM {self.edges} r
                  WHERE r.id = ANY($4::ag_catalog.graphid[]) OFFSET 0) r
            {self._vertex_by_id("a", "r.start_id")} {self._vertex_by_id("b", "r.end_id")}
            WHERE {_visible("r", "a", "b")}{valid}
        """

    @cache  # noqa: B019
    def chunks_of_nodes(self) -> str:
        """$4 node keys, $5 per-node limit → the newest visible chunks referencing each."""
        return f"""
            SELECT k.key AS node_key, hit.*, {MARK_COLUMNS}
            FROM unnest($4::text[]) AS k(key)
            CROSS JOIN LATERAL (
                SELECT * FROM (
                    SELECT {CHUNK_COLUMNS} FROM chunks c
                    WHERE c.graph_refs @> ARRAY[k.key] OFFSET 0
                ) c
                WHERE {visible_rows(1, "c")}
                ORDER BY c.created_at DESC, c.id
                LIMIT $5
            ) hit
            {marks_join("hit")}
        """
