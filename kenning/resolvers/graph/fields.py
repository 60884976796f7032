"""Field resolvers of ``Node`` and ``Edge``: argument checks, then a per-request loader.

They return read models; the schema types turn them into GraphQL objects. The reader scope
comes from the root field that produced the node or edge (decided there by ``read_scope``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.graph.model import (
    MAX_EVIDENCE,
    MAX_NODE_CHUNKS,
    MAX_NODE_EDGES,
    Direction,
    EdgeView,
    NodeView,
    check_range,
    edge_type_filter,
)
from kenning.domain.ingestion.validity import as_of as read_time
from kenning.graphql.context import Info
from kenning.resolvers.loaders import chunks_by_node, degree_by_node, edges_by_node


async def node_edges(
    info: Info,
    reader: Scope,
    key: str,
    direction: Direction,
    edge_types: Sequence[str] | None,
    limit: int,
    as_of: datetime | None = None,
) -> list[EdgeView]:
    """At most ``limit`` visible edges of the node valid at ``as_of`` (None, or a time to
    come: now), ordered by (type, from, to)."""
    check_range(limit, 1, MAX_NODE_EDGES, "limit")
    types = edge_type_filter(edge_types)
    if types == ():
        return []
    when = read_time(as_of, datetime.now(UTC))
    loader = info.context.loaders.edges_by_node(reader)
    return await loader.load(edges_by_node.Key(key, direction, types, limit, when))


async def node_chunks(info: Info, reader: Scope, key: str, limit: int) -> list[ChunkView]:
    """The newest visible chunks whose graph references hold the node's key."""
    check_range(limit, 1, MAX_NODE_CHUNKS, "limit")
    loader = info.context.loaders.chunks_by_node(reader)
    return await loader.load(chunks_by_node.Key(key, limit))


async def node_degree(info: Info, reader: Scope, key: str, as_of: datetime | None = None) -> int:
    """How many visible edges valid at ``as_of`` (None, or a time to come: now) touch the
    node."""
    when = read_time(as_of, datetime.now(UTC))
    return await info.context.loaders.degree_by_node(reader).load(degree_by_node.Key(key, when))


async def node_of(info: Info, reader: Scope, key: str) -> NodeView | None:
    """The visible node with this canonical key."""
    return await info.context.loaders.nodes_by_key(reader).load(key)


async def edge_evidence(
    info: Info, reader: Scope, chunk_ids: Sequence[str], limit: int
) -> list[ChunkView]:
    """The first ``limit`` supporting chunks (by id) that ``reader`` can see."""
    check_range(limit, 1, MAX_EVIDENCE, "limit")
    found = await info.context.loaders.chunks_by_id(reader).load_many(list(chunk_ids[:limit]))
    return [chunk for chunk in found if chunk is not None]
