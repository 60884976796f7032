"""Graph types: ``Node``, ``Edge``, ``Subgraph`` and ``Path``.

Leaf fields are plain attributes; only fields that read (``chunks``, ``edges``, ``degree``,
an edge's ``from``/``to``/``evidence``) resolve, each through a per-request DataLoader. Each
object carries the reader scope of the root field it came from (a private attribute).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import (
    Direction,
    EdgeValidity,
    EdgeView,
    NodeView,
    PathView,
    SubgraphView,
)
from kenning.graphql.context import Info
from kenning.graphql.execution.field_plan import known_attribute
from kenning.resolvers.graph.fields import (
    edge_evidence,
    node_chunks,
    node_degree,
    node_edges,
    node_of,
)
from kenning.schema.access.scope import ScopeInfo, scope_info
from kenning.schema.graph.assertion import EdgeAssertion
from kenning.schema.graph.enums import EndReason, EvidenceKind
from kenning.schema.retrieval.chunk import Chunk


async def _chunks(root: Node, info: Info, limit: int = 10) -> list[Chunk]:
    return [Chunk.from_view(c) for c in await node_chunks(info, root.reader, root.key, limit)]


async def _edges(
    root: Node,
    info: Info,
    direction: Direction = Direction.BOTH,
    edge_types: list[str] | None = None,
    limit: int = 50,
    as_of: Annotated[
        datetime | None,
        strawberry.argument(
            description="Answer as the graph was then: edges valid at that time. Defaults "
            "to the time the node was read at (now, or the root field's asOf)."
        ),
    ] = None,
) -> list[Edge]:
    when = root.as_of if as_of is None else as_of
    views = await node_edges(info, root.reader, root.key, direction, edge_types, limit, when)
    return edge_list(views, root.reader)


async def _degree(
    root: Node,
    info: Info,
    as_of: Annotated[
        datetime | None,
        strawberry.argument(
            description="Count the edges valid at that time. Defaults to the time the node "
            "was read at (now, or the root field's asOf)."
        ),
    ] = None,
) -> int:
    when = root.as_of if as_of is None else as_of
    return await node_degree(info, root.reader, root.key, when)


@strawberry.type(
    description="An entity: the visible vertices of one key, merged (most specific scope wins)."
)
class Node:
    key: str
    type: str
    properties: JSON
    scope: ScopeInfo = strawberry.field(description="The scope of the winning vertex.")
    chunks: list[Chunk] = strawberry.field(
        resolver=_chunks, description="The newest chunks that reference this node."
    )
    edges: list[Edge] = strawberry.field(
        resolver=_edges, description="Edges touching this node, ordered by type, from, to."
    )
    degree: int = strawberry.field(
        resolver=_degree,
        description="How many edges touch this node (both directions), valid now or asOf.",
    )
    reader: strawberry.Private[Scope]
    as_of: strawberry.Private[datetime | None] = None

    @classmethod
    def from_view(cls, view: NodeView, reader: Scope, as_of: datetime | None = None) -> Node:
        """The GraphQL form of a node read by ``reader`` (as of a time: its edges then)."""
        return cls(
            key=view.key,
            type=view.type,
            properties=JSON(dict(view.properties)),
            scope=scope_info(view.scope),
            reader=reader,
            as_of=as_of,
        )


async def _endpoint(info: Info, reader: Scope, key: str) -> Node:
    view = await node_of(info, reader, key)
    if view is None:  # removed since the edge was read; still answer with the key
        view = NodeView(key, key.partition(":")[0], {}, Scope())
    return Node.from_view(view, reader)


# Sync on purpose: where the endpoint is already known (subgraphs, paths) the node is
# returned as is, and the executor reads it as a plain attribute (``known_attribute``)
# without calling the resolver; otherwise the loader's awaitable is returned and GraphQL
# awaits it.
@known_attribute("from_node")
def _from(root: Edge, info: Info) -> Node | Awaitable[Node]:
    if root.from_node is not None:
        return root.from_node
    return _endpoint(info, root.reader, root.from_key)


@known_attribute("to_node")
def _to(root: Edge, info: Info) -> Node | Awaitable[Node]:
    if root.to_node is not None:
        return root.to_node
    return _endpoint(info, root.reader, root.to_key)


async def _evidence(root: Edge, info: Info, limit: int = 20) -> list[Chunk]:
    chunks = await edge_evidence(info, root.reader, root.evidence_ids, limit)
    return [Chunk.from_view(c) for c in chunks]


@strawberry.type(description="A typed, evidence-bearing relation between two nodes.")
class Edge:
    edge_type: str
    confidence: float = strawberry.field(
        description="n / (n + 1) for n pieces of evidence (chunks and assertions): 0.5 for "
        "one, 0.75 for three."
    )
    evidence_count: int = strawberry.field(
        description="How much evidence supports this edge: its chunks (TEXT) and the sources "
        "that asserted it with no text (ASSERTED)."
    )
    evidence_kinds: list[EvidenceKind] = strawberry.field(
        description="The kinds of its evidence: TEXT (chunks, listed by `evidence`), ASSERTED "
        "(sources, listed by `assertedBy`)."
    )
    asserted_by: list[EdgeAssertion] = strawberry.field(
        description="The sources that gave this edge with no text, with the key that wrote "
        "each and when; empty for an edge only text supports."
    )
    properties: JSON = strawberry.field(
        description="The edge's own properties as the newest of its sources (by observedAt) "
        "gave them; each source's are kept apart. An edge's linked piece (piece_id) is its "
        "evidence, never a property. {} when no source gave any."
    )
    scope: ScopeInfo
    from_ = strawberry.field(resolver=_from, name="from", graphql_type=Node)
    to = strawberry.field(resolver=_to, graphql_type=Node)
    evidence = strawberry.field(
        resolver=_evidence,
        description="The supporting chunks, TEXT evidence (first `limit` by id).",
    )
    from_key: str = strawberry.field(
        name="fromKey", description="The key of `from`, without loading the node."
    )
    to_key: str = strawberry.field(
        name="toKey", description="The key of `to`, without loading the node."
    )
    extracted_by: str | None = strawberry.field(
        default=None,
        description="`llm:<model>` when a model extracted this edge from its evidence; null for"
        " edges a writer gave.",
    )
    extraction_confidence: float | None = strawberry.field(
        default=None, description="The extracting model's own confidence (0..1), if extracted."
    )
    valid_from: datetime | None = strawberry.field(
        default=None,
        description="Since when the edge holds (valid time): its first evidence's observedAt.",
    )
    valid_to: datetime | None = strawberry.field(
        default=None, description="When it stopped holding; null while it holds."
    )
    recorded_at: datetime | None = strawberry.field(
        default=None, description="When Kenning learned of it (record time)."
    )
    ended_at: datetime | None = strawberry.field(
        default=None, description="When Kenning learned it had ended (record time)."
    )
    ended_reason: EndReason | None = strawberry.field(default=None)
    ended_by: str | None = strawberry.field(
        default=None,
        description="What ended it: the newer source's URN, a key id, or `llm:<model>`.",
    )
    evidence_ids: strawberry.Private[tuple[str, ...]]
    reader: strawberry.Private[Scope]
    from_node: strawberry.Private[Node | None] = None
    to_node: strawberry.Private[Node | None] = None

    @classmethod
    def from_view(
        cls, view: EdgeView, reader: Scope, known: Mapping[str, Node] | None = None
    ) -> Edge:
        """The GraphQL form of an edge read by ``reader``; endpoints found in ``known`` are
        attached so they need no load."""
        known = known or {}
        return cls(
            edge_type=view.edge_type,
            confidence=view.confidence,
            evidence_count=view.evidence_count,
            evidence_kinds=list(view.evidence_kinds),
            asserted_by=[EdgeAssertion.from_assertion(a) for a in view.assertions],
            properties=JSON(dict(view.properties)),
            scope=scope_info(view.scope),
            from_key=view.from_key,
            to_key=view.to_key,
            extracted_by=view.extracted_by,
            extraction_confidence=view.extraction_confidence,
            **_validity(view.validity),
            evidence_ids=view.evidence_chunk_ids,
            reader=reader,
            from_node=known.get(view.from_key),
            to_node=known.get(view.to_key),
        )


def _validity(validity: EdgeValidity | None) -> dict[str, Any]:
    if validity is None:
        return {}
    return {
        "valid_from": validity.valid_from,
        "valid_to": validity.valid_to,
        "recorded_at": validity.recorded_at,
        "ended_at": validity.ended_at,
        "ended_reason": validity.ended_reason,
        "ended_by": validity.ended_by,
    }


@strawberry.type(description="Nodes and edges around a node; `truncated` when a limit cut it.")
class Subgraph:
    nodes: list[Node]
    edges: list[Edge]
    truncated: bool

    @classmethod
    def from_view(
        cls, view: SubgraphView, reader: Scope, as_of: datetime | None = None
    ) -> Subgraph:
        """The GraphQL form of a subgraph (read as of a time: its nodes' edges then)."""
        nodes = {n.key: Node.from_view(n, reader, as_of) for n in view.nodes}
        return cls(
            nodes=list(nodes.values()),
            edges=edge_list(view.edges, reader, nodes),
            truncated=view.truncated,
        )


@strawberry.type(description="A shortest path: its nodes from start to end and the edges.")
class Path:
    nodes: list[Node]
    edges: list[Edge]
    length: int

    @classmethod
    def from_view(cls, view: PathView, reader: Scope, as_of: datetime | None = None) -> Path:
        """The GraphQL form of a path (read as of a time: its nodes' edges then)."""
        nodes = [Node.from_view(n, reader, as_of) for n in view.nodes]
        return cls(
            nodes=nodes,
            edges=edge_list(view.edges, reader, {n.key: n for n in nodes}),
            length=view.length,
        )


def edge_list(
    views: Sequence[EdgeView], reader: Scope, known: Mapping[str, Node] | None = None
) -> list[Edge]:
    """GraphQL edges from read models (endpoints in ``known`` attached)."""
    return [Edge.from_view(view, reader, known) for view in views]
