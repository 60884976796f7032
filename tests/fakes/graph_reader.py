"""An in-memory ``GraphReader`` with the storage adapter's contract, counting its calls.

Vertices and edges carry scopes and are filtered with ``Scope.can_see``, like the SQL
predicates; orders and limits follow ``PgGraphReader``, so traversal logic can be tested
without a database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from kenning.domain.access.scope import GLOBAL, ProjectGroups, Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.graph.model import (
    Direction,
    EdgeView,
    Hop,
    NodeView,
    VertexPart,
    merge_vertices,
)


@dataclass
class FakeGraph:
    """Vertices (key, scope, type, properties) and edges, with a call counter per method."""

    vertices: list[tuple[str, VertexPart]] = field(default_factory=list)
    edges: list[EdgeView] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def at(self, when: datetime | None) -> FakeGraph:
        """The fake holds current edges only: every time answers as now."""
        return self

    async def every_edge_of(
        self, reader: Scope, keys: Sequence[str], limit: int
    ) -> dict[str, list[EdgeView]]:
        """Every edge the fake holds is current."""
        return await self.edges_of(reader, keys, Direction.BOTH, None, limit)

    def add_node(self, key: str, scope: Scope = GLOBAL, **properties: object) -> None:
        self.vertices.append((key, VertexPart(scope, key.split(":")[0], properties)))

    def add_edge(
        self, from_key: str, edge_type: str, to_key: str, scope: Scope = GLOBAL, evidence: int = 1
    ) -> EdgeView:
        for key in (from_key, to_key):
            if not any(k == key and v.scope == scope for k, v in self.vertices):
                self.add_node(key, scope)
        edge = EdgeView(
            id=len(self.edges) + 1,
            edge_type=edge_type,
            from_key=from_key,
            to_key=to_key,
            scope=scope,
            evidence_chunk_ids=tuple(f"c{len(self.edges)}-{i}" for i in range(evidence)),
        )
        self.edges.append(edge)
        return edge

    @property
    def _groups(self) -> ProjectGroups:
        # What the writes would have recorded: every project with the group it names.
        return ProjectGroups.stamped([v.scope for _, v in self.vertices])

    def _visible_keys(self, reader: Scope) -> set[str]:
        return {k for k, v in self.vertices if reader.can_see(v.scope, self._groups)}

    def _visible_edges(self, reader: Scope, types: tuple[str, ...] | None) -> list[EdgeView]:
        keys = self._visible_keys(reader)
        return [
            e
            for e in self.edges
            if reader.can_see(e.scope, self._groups)
            and e.from_key in keys
            and e.to_key in keys
            and (types is None or e.edge_type in types)
        ]

    @staticmethod
    def _touches(edge: EdgeView, keys: set[str], direction: Direction) -> bool:
        out = edge.from_key in keys and direction is not Direction.IN
        into = edge.to_key in keys and direction is not Direction.OUT
        return out or into

    @staticmethod
    def _order(edge: EdgeView) -> tuple[str, str, str, int]:
        return edge.edge_type, edge.from_key, edge.to_key, edge.id

    async def nodes(self, reader: Scope, keys: Sequence[str]) -> dict[str, NodeView]:
        self.calls["nodes"] += 1
        parts: dict[str, list[VertexPart]] = defaultdict(list)
        for key, part in self.vertices:
            if key in keys and reader.can_see(part.scope, self._groups):
                parts[key].append(part)
        merged = {k: merge_vertices(k, p, reader) for k, p in parts.items()}
        return {k: v for k, v in merged.items() if v is not None}

    async def edges_of(
        self,
        reader: Scope,
        keys: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> dict[str, list[EdgeView]]:
        self.calls["edges_of"] += 1
        visible = sorted(self._visible_edges(reader, edge_types), key=self._order)
        return {k: [e for e in visible if self._touches(e, {k}, direction)][:limit] for k in keys}

    async def degrees(self, reader: Scope, keys: Sequence[str]) -> dict[str, int]:
        self.calls["degrees"] += 1
        visible = self._visible_edges(reader, None)
        return {k: sum(self._touches(e, {k}, Direction.BOTH) for e in visible) for k in keys}

    async def expand(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[EdgeView]:
        self.calls["expand"] += 1
        return self._frontier(reader, frontier, direction, edge_types, limit)

    def _frontier(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[EdgeView]:
        keys = set(frontier) & self._visible_keys(reader)
        visible = self._visible_edges(reader, edge_types)
        touching = [e for e in visible if self._touches(e, keys, direction)]
        return sorted(touching, key=self._order)[:limit]

    async def hops(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[Hop]:
        self.calls["hops"] += 1
        edges = self._frontier(reader, frontier, direction, edge_types, limit)
        return [Hop(e.id, e.from_key, e.to_key) for e in edges]

    async def edges_by_ids(self, reader: Scope, ids: Sequence[int]) -> dict[int, EdgeView]:
        self.calls["edges_by_ids"] += 1
        return {e.id: e for e in self._visible_edges(reader, None) if e.id in ids}

    async def chunks_of(
        self, reader: Scope, keys: Sequence[str], limit: int
    ) -> dict[str, list[ChunkView]]:
        self.calls["chunks_of"] += 1
        return {}
