"""The graph as a reader sees it: read models, confidence, argument rules and the port.

**One node per key.** A vertex exists per scope, so one key may have several vertices a
reader can see (global, client, group, sibling projects of the group, its own project).
The reader gets them as one node: the key, the type and the properties merged so that the
most specific scope wins, and ``scope`` naming that winning vertex. Specificity, least to
most: global, client, a sibling project of the reader's group, the reader's group, the
reader's own project — the group's shared data is closer to the reader than another
project's private view, so it outranks a sibling. A global or client reader also sees the
vertices below it: its own level's vertex wins, then the global one, then other clients'
client-wide vertices (a global reader's), groups, then projects. Among equals the greatest
(client, project, group) wins, an arbitrary but stable rule.

**Edges are rows.** Every visible ``REL`` row whose two vertices are visible is an edge; the
same (from, type, to) stored at two scopes is two edges, each with its own evidence.

**Confidence** is ``n / (n + 1)`` for ``n`` distinct pieces of evidence (supporting chunks,
and sources' assertions of edges given with no text: ``edge_sources``): 0.5 for one chunk,
0.67 for two, 0.75 for three, 0.9 for nine, never 1. It grows with every supporting chunk
and saturates. The noisy-or ``1 - 0.5**n`` was rejected: it treats chunks as independent
witnesses, yet chunks that support one edge usually restate one source, and it saturates
so fast (0.97 at five, 0.999 at ten) that it stops telling well-supported edges apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from kenning.domain.access.scope import Scope, ScopeLevel
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.ingestion.edge_sources import Assertion, EvidenceKind
from kenning.domain.ingestion.node_keys import normalize_edge_type
from kenning.domain.ingestion.validity import EndReason

MAX_DEPTH = 3
MAX_PATH_DEPTH = 6
MAX_SUBGRAPH_LIMIT = 1000
MAX_NODE_EDGES = 500
MAX_NODE_CHUNKS = 100
MAX_EVIDENCE = 100
MAX_NODE_KEYS = 1000
MAX_EDGE_TYPES = 32


class Direction(StrEnum):
    """Which edges of a node to follow: outgoing, incoming or both."""

    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"

    @property
    def reverse(self) -> Direction:
        """The direction seen from the other end of an edge."""
        if self is Direction.OUT:
            return Direction.IN
        if self is Direction.IN:
            return Direction.OUT
        return Direction.BOTH


@dataclass(frozen=True, slots=True)
class NodeView:
    """A node: the merged visible vertices of one key."""

    key: str
    type: str
    properties: Mapping[str, object]
    scope: Scope


@dataclass(frozen=True, slots=True)
class EdgeView:
    """One visible edge row: chunk ids (TEXT evidence), assertions (ASSERTED), properties."""

    id: int
    edge_type: str
    from_key: str
    to_key: str
    scope: Scope
    evidence_chunk_ids: tuple[str, ...]
    # Set when a model extracted the edge: ``llm:<model>`` and the model's own confidence.
    extracted_by: str | None = None
    extraction_confidence: float | None = None
    # Its (latest) interval: valid over [valid_from, valid_to), None while it holds.
    validity: EdgeValidity | None = None
    assertions: tuple[Assertion, ...] = ()  # sources asserting it with no text
    properties: Mapping[str, object] = field(default_factory=dict)  # its newest source's

    @property
    def evidence_count(self) -> int:
        """Its distinct evidence: chunks and assertions."""
        return len(set(self.evidence_chunk_ids)) + len(self.assertions)

    @property
    def confidence(self) -> float:
        """``n / (n + 1)`` over ``evidence_count`` (see the module docstring)."""
        return edge_confidence(self.evidence_count)

    @property
    def evidence_kinds(self) -> tuple[EvidenceKind, ...]:
        """The kinds of its evidence: TEXT, then ASSERTED."""
        had = (bool(self.evidence_chunk_ids), bool(self.assertions))
        return tuple(k for k, h in zip(EvidenceKind, had, strict=True) if h)


@dataclass(frozen=True, slots=True)
class EdgeValidity:
    """When an edge held (valid time) and when Kenning learned it began and ended (record
    time); see ``kenning.domain.ingestion.validity``."""

    valid_from: datetime | None
    valid_to: datetime | None = None
    recorded_at: datetime | None = None
    ended_at: datetime | None = None
    ended_reason: EndReason | None = None
    ended_by: str | None = None


@dataclass(frozen=True, slots=True)
class Hop:
    """An edge reduced to what a path search needs."""

    edge_id: int
    from_key: str
    to_key: str


@dataclass(frozen=True, slots=True)
class SubgraphView:
    """Nodes and edges around a start node; ``truncated`` when a limit cut it."""

    nodes: tuple[NodeView, ...] = ()
    edges: tuple[EdgeView, ...] = ()
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class PathView:
    """Nodes from the start to the end and the edges between them, in order."""

    nodes: tuple[NodeView, ...]
    edges: tuple[EdgeView, ...]

    @property
    def length(self) -> int:
        """The number of edges."""
        return len(self.edges)


@dataclass(frozen=True, slots=True)
class VertexPart:
    """One stored vertex of a key, as read from one scope."""

    scope: Scope
    type: str
    properties: Mapping[str, object] = field(default_factory=dict)


def edge_confidence(supporting_chunks: int) -> float:
    """Confidence of an edge supported by ``n`` chunks: ``n / (n + 1)``; 1 → 0.5, 3 → 0.75."""
    n = max(0, supporting_chunks)
    return n / (n + 1)


def specificity(row: Scope, reader: Scope) -> tuple[int, str, str, str]:
    """Sort key: larger is more specific for ``reader`` (see the module docstring)."""
    level = row.level
    if reader.level in (ScopeLevel.GLOBAL, ScopeLevel.CLIENT):
        if row == reader:
            rank = 4
        else:
            rank = {ScopeLevel.GLOBAL: 3, ScopeLevel.CLIENT: 2, ScopeLevel.GROUP: 1}.get(level, 0)
    elif level is ScopeLevel.PROJECT:
        rank = 4 if row.project_id == reader.project_id else 2
    elif level is ScopeLevel.GROUP:
        rank = 3
    else:
        rank = 1 if level is ScopeLevel.CLIENT else 0
    return rank, row.client_id, row.project_id, row.group_id


def merge_vertices(key: str, parts: Iterable[VertexPart], reader: Scope) -> NodeView | None:
    """One node from the visible vertices of ``key``; the most specific scope wins."""
    ordered = sorted(parts, key=lambda part: specificity(part.scope, reader))
    if not ordered:
        return None
    properties: dict[str, object] = {}
    for part in ordered:
        properties.update(part.properties)
    winner = ordered[-1]
    return NodeView(key=key, type=winner.type, properties=properties, scope=winner.scope)


def check_range(value: int, low: int, high: int, field: str) -> int:
    """``value`` when ``low <= value <= high``; otherwise a ``ValidationError`` on ``field``."""
    if not low <= value <= high:
        raise ValidationError(f"{field} must be between {low} and {high}", field=field)
    return value


def check_depth(depth: int) -> int:
    """A neighbourhood depth: 1 to 3 hops."""
    return check_range(depth, 1, MAX_DEPTH, "depth")


def check_max_depth(max_depth: int) -> int:
    """A path's longest allowed length: 1 to 6 edges."""
    return check_range(max_depth, 1, MAX_PATH_DEPTH, "maxDepth")


def edge_type_filter(raw: Sequence[str] | None) -> tuple[str, ...] | None:
    """Normalized, de-duplicated edge types; ``None`` (no filter) when not given.

    An empty list is a filter that matches nothing, so it is kept as ``()``.
    """
    if raw is None:
        return None
    if len(raw) > MAX_EDGE_TYPES:
        raise TooLargeError(f"at most {MAX_EDGE_TYPES} edge types", field="edgeTypes")
    types: set[str] = set()
    for item in raw:
        try:
            types.add(normalize_edge_type(item))
        except ValidationError as error:
            raise ValidationError(error.message, field="edgeTypes") from error
    return tuple(sorted(types))


class GraphReader(Protocol):
    """Scoped reads of the graph, each one statement; storage implements it."""

    def at(self, when: datetime | None) -> GraphReader:
        """This reader answering as the graph was at ``when`` (None: now): only edges valid
        then (``validFrom <= when < validTo``)."""
        ...

    async def every_edge_of(
        self, reader: Scope, keys: Sequence[str], limit: int
    ) -> dict[str, list[EdgeView]]:
        """At most ``limit`` visible edges per key, both directions, ended ones included
        (each with its validity): what a history read lists."""
        ...

    async def nodes(self, reader: Scope, keys: Sequence[str]) -> dict[str, NodeView]:
        """The visible nodes among ``keys``, by key."""
        ...

    async def edges_of(
        self,
        reader: Scope,
        keys: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> dict[str, list[EdgeView]]:
        """Per node key, at most ``limit`` visible edges touching it, in a stable order."""
        ...

    async def degrees(self, reader: Scope, keys: Sequence[str]) -> dict[str, int]:
        """Per node key, how many visible edges touch it."""
        ...

    async def expand(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[EdgeView]:
        """At most ``limit`` visible edges touching any frontier key, each once, ordered by
        (type, from, to, id)."""
        ...

    async def hops(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[Hop]:
        """``expand`` without properties, for path searches over large frontiers."""
        ...

    async def edges_by_ids(self, reader: Scope, ids: Sequence[int]) -> dict[int, EdgeView]:
        """The visible edges among ``ids``."""
        ...

    async def chunks_of(
        self, reader: Scope, keys: Sequence[str], limit: int
    ) -> dict[str, list[ChunkView]]:
        """Per node key, the newest visible chunks that reference it."""
        ...
