"""The rows the leak tests read straight from the tables (``ground_truth.load``), and
``Visible``: the rows one reader scope may see and the read results they imply."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.edge_sources import EvidenceKind, evidence_kind


@dataclass(frozen=True, slots=True)
class StoredChunk:
    id: str
    scope: Scope
    kind: str
    source_urn: str
    content: str
    graph_refs: frozenset[str]


@dataclass(frozen=True, slots=True)
class StoredVertex:
    key: str
    scope: Scope
    properties: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class StoredEdge:
    from_key: str
    edge_type: str
    to_key: str
    scope: Scope
    evidence: frozenset[str]
    current: bool = True  # not ended (a retraction ends one)

    @property
    def identity(self) -> EdgeId:
        return (self.from_key, self.edge_type, self.to_key, self.scope)

    @property
    def chunk_ids(self) -> frozenset[str]:
        """Its text evidence (its other evidence is sources' assertions)."""
        return frozenset(e for e in self.evidence if evidence_kind(e) is EvidenceKind.TEXT)


EdgeId = tuple[str, str, str, Scope]
# A source's URN or a stored original's id, with its scope.
SourceId = tuple[str, Scope]


@dataclass(frozen=True, slots=True)
class StoredCheckIn:
    """A structureKnowledge check-in: its scope and the text (and hints) it recorded."""

    id: str
    scope: Scope
    text: str


@dataclass(frozen=True, slots=True)
class Visible:
    """The rows one reader scope may see, and the read results they imply."""

    reader: Scope
    chunks: Mapping[str, StoredChunk]
    vertices: tuple[StoredVertex, ...]
    edges: tuple[StoredEdge, ...]  # those that hold now, what every read answers with
    every_edge: tuple[StoredEdge, ...] = ()  # ended ones too, as edgeHistory lists them
    check_ins: frozenset[str] = frozenset()
    sources: frozenset[SourceId] = frozenset()
    files: frozenset[SourceId] = frozenset()
    _by_key: dict[str, list[StoredVertex]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        for vertex in self.vertices:
            self._by_key.setdefault(vertex.key, []).append(vertex)

    @property
    def keys(self) -> set[str]:
        """Keys with at least one visible vertex."""
        return set(self._by_key)

    def parts(self, key: str) -> list[StoredVertex]:
        """The visible vertices of ``key``."""
        return self._by_key.get(key, [])

    def edge_ids(self, edges: Iterable[StoredEdge] | None = None) -> set[EdgeId]:
        return {e.identity for e in (self.edges if edges is None else edges)}

    def touching(self, key: str) -> list[StoredEdge]:
        """Visible edges with ``key`` at either end."""
        return [e for e in self.edges if key in (e.from_key, e.to_key)]

    def chunks_of_kind(self, kind: str) -> set[str]:
        return {i for i, c in self.chunks.items() if c.kind == kind}

    def chunks_referencing(self, key: str) -> set[str]:
        return {i for i, c in self.chunks.items() if key in c.graph_refs}

    def distances(self, start: str) -> dict[str, int]:
        """Hops from ``start`` over visible edges in either direction (empty if invisible)."""
        if start not in self._by_key:
            return {}
        seen = {start: 0}
        queue = deque([start])
        while queue:
            key = queue.popleft()
            for edge in self.touching(key):
                other = edge.to_key if edge.from_key == key else edge.from_key
                if other not in seen:
                    seen[other] = seen[key] + 1
                    queue.append(other)
        return seen

    def neighborhood(self, start: str, depth: int) -> tuple[set[str], set[EdgeId]]:
        """What an untruncated ``neighbors(start, depth)`` holds: the nodes within ``depth``
        hops and every edge touching a node within ``depth - 1`` hops."""
        distance = self.distances(start)
        nodes = {k for k, d in distance.items() if d <= depth}
        inner = {k for k, d in distance.items() if d < depth}
        edges = {e for e in self.edges if e.from_key in inner or e.to_key in inner}
        return nodes, self.edge_ids(edges)
