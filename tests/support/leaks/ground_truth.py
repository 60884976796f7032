"""What is stored, read straight from the tables, and what a reader scope may see of it.

The oracle is ``Scope.can_see`` (the scope rule) over the recorded project groups, applied
to rows read without any visibility predicate, so a bug in ``kenning.storage.db.visibility`` or
in a read path cannot hide itself. ``load`` also checks that every row sits where its writer
put it (its tag matches its scope), which is what makes the tag scan of the responses
meaningful.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg

from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.ingestion.edge_sources import (
    ASSERTIONS,
    SOURCE_PROPERTIES,
)
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import tag, tags_in
from tests.support.leaks.graph_history import History, history_rows
from tests.support.leaks.stored_rows import (
    SourceId,
    StoredCheckIn,
    StoredChunk,
    StoredEdge,
    StoredVertex,
    Visible,
)

_META = frozenset({"key", "type", "client", "project", "group"})


def _scope(props: Mapping[str, Any]) -> Scope:
    return Scope(props["client"], props["project"], props["group"])


def _agtype(text: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(text)
    return value


@dataclass(frozen=True, slots=True)
class Stored:
    """Every chunk, vertex and edge in the database."""

    chunks: Mapping[str, StoredChunk]
    vertices: tuple[StoredVertex, ...]
    edges: tuple[StoredEdge, ...]
    groups: ProjectGroups
    """Which group each project is in, as recorded: the rule reads it, not row stamps."""
    check_ins: tuple[StoredCheckIn, ...] = ()
    relations: tuple[tuple[str, str], ...] = ()
    """(client, edge type) of every declared relation: a reader sees its client's."""
    history: History = ((), ())
    """Every node property version, and every change of a node or an edge."""
    sources: frozenset[SourceId] = frozenset()
    """(URN, scope) of every ``sources`` row, as ``sources`` lists them."""
    files: frozenset[SourceId] = frozenset()
    """(id, scope) of every stored original, as ``storedFiles`` lists them."""

    def can_see(self, reader: Scope, row: Scope) -> bool:
        """The reference rule, over the recorded groups."""
        return reader.can_see(row, self.groups)

    def seen_by(self, reader: Scope) -> Visible:
        """What ``reader`` may see, by the reference rule."""
        return Visible(
            reader=reader,
            chunks={i: c for i, c in self.chunks.items() if self.can_see(reader, c.scope)},
            vertices=tuple(v for v in self.vertices if self.can_see(reader, v.scope)),
            edges=tuple(e for e in self.edges if e.current and self.can_see(reader, e.scope)),
            every_edge=tuple(e for e in self.edges if self.can_see(reader, e.scope)),
            check_ins=frozenset(c.id for c in self.check_ins if self.can_see(reader, c.scope)),
            sources=frozenset(s for s in self.sources if self.can_see(reader, s[1])),
            files=frozenset(f for f in self.files if self.can_see(reader, f[1])),
        )


async def load(pool: asyncpg.Pool, graph: str) -> Stored:
    """Read every row, and check each one carries the tag of the scope it is stored at."""
    chunk_rows = await pool.fetch(
        "SELECT id, client_id, project_id, group_id, kind, source_urn, content, graph_refs "
        "FROM chunks"
    )
    chunks = {
        r["id"]: StoredChunk(
            r["id"],
            Scope(r["client_id"], r["project_id"], r["group_id"]),
            r["kind"],
            r["source_urn"],
            r["content"],
            frozenset(r["graph_refs"]),
        )
        for r in chunk_rows
    }
    vertex_rows = await pool.fetch(
        f'SELECT ag_catalog.agtype_out(v.properties)::text AS p FROM {graph}."Entity" v'
    )
    vertices = []
    for row in vertex_rows:
        props = _agtype(row["p"])
        extra = {k: v for k, v in props.items() if k not in _META}
        vertices.append(StoredVertex(props["key"], _scope(props), extra))
    edge_rows = await pool.fetch(
        "SELECT ag_catalog.agtype_out(r.properties)::text AS p, "
        "ag_catalog.agtype_out(a.properties)::text AS a, "
        "ag_catalog.agtype_out(b.properties)::text AS b "
        f'FROM {graph}."REL" r JOIN {graph}."Entity" a ON a.id = r.start_id '
        f'JOIN {graph}."Entity" b ON b.id = r.end_id'
    )
    edges = []
    for row in edge_rows:
        props, start, end = _agtype(row["p"]), _agtype(row["a"]), _agtype(row["b"])
        edge = StoredEdge(
            start["key"],
            props["edgeType"],
            end["key"],
            _scope(props),
            frozenset(props["evidenceChunkIds"]),
            props.get("validTo") is None,
        )
        assert _scope(start) == _scope(end) == edge.scope, ("edge across scopes", edge)
        said = json.dumps([props.get(ASSERTIONS), props.get(SOURCE_PROPERTIES)])
        assert tags_in(said) <= {edge.scope}, ("edge properties stored elsewhere", edge)
        edges.append(edge)
    group_rows = await pool.fetch("SELECT client_id, project_id, group_id FROM project_groups")
    groups = ProjectGroups({(r["client_id"], r["project_id"]): r["group_id"] for r in group_rows})
    check_in_rows = await pool.fetch(
        "SELECT id, client_id, project_id, group_id, "
        "coalesce(input_text, '') || ' ' || coalesce(hints, '') AS text FROM check_ins"
    )
    check_ins = tuple(
        StoredCheckIn(r["id"], Scope(r["client_id"], r["project_id"], r["group_id"]), r["text"])
        for r in check_in_rows
    )
    relation_rows = await pool.fetch("SELECT client_id, edge_type FROM relations")
    relations = tuple(sorted((r["client_id"], r["edge_type"]) for r in relation_rows))
    history = await history_rows(pool)
    sources, files = await _sources_and_files(pool)
    stored = Stored(
        chunks, tuple(vertices), tuple(edges), groups, check_ins, relations, history, sources, files
    )
    _check_placement(stored)
    return stored


async def _sources_and_files(
    pool: asyncpg.Pool,
) -> tuple[frozenset[SourceId], frozenset[SourceId]]:
    found = []
    for sql in (
        "SELECT source_urn AS k, client_id, project_id, group_id FROM sources",
        "SELECT id AS k, client_id, project_id, group_id FROM source_files",
    ):
        rows = await pool.fetch(sql)
        found.append(
            frozenset((r["k"], Scope(r["client_id"], r["project_id"], r["group_id"])) for r in rows)
        )
    return found[0], found[1]


def _check_placement(stored: Stored) -> None:
    for chunk in stored.chunks.values():
        assert tags_in(chunk.content) == {chunk.scope}, ("chunk stored elsewhere", chunk)
    for vertex in stored.vertices:
        marks = tags_in(json.dumps(vertex.properties))
        assert marks <= {vertex.scope}, ("vertex stored elsewhere", vertex)
        assert vertex.properties.get("owner", tag(vertex.scope)) == tag(vertex.scope)
    for check_in in stored.check_ins:
        assert tags_in(check_in.text) == {check_in.scope}, ("check-in stored elsewhere", check_in)
    for edge in stored.edges:
        assert edge.evidence, ("edge without evidence", edge)
        for chunk_id in edge.chunk_ids:
            assert stored.chunks[chunk_id].scope == edge.scope, ("foreign evidence", edge)


async def fresh(api: Api) -> None:
    """Empty the knowledge base, as the ``clean`` fixture does, but once per example."""
    graph = api.runtime.settings.graph_name
    async with api.runtime.pool.acquire() as conn:
        await conn.execute(
            "TRUNCATE chunks, sources, source_mentions, aliases, project_groups, check_ins, "
            "relations, edge_intervals, edge_endings, chunk_marks, "
            "knowledge_versions, procedure_versions, changes, node_property_versions, "
            f'{graph}."Entity", {graph}."REL"'
        )


async def snapshot(api: Api) -> Stored:
    """Every stored row, read without any visibility predicate."""
    return await load(api.runtime.pool, api.runtime.settings.graph_name)
