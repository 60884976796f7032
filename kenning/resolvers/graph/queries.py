"""Resolvers of the graph queries: ``node``, ``nodes``, ``neighbors`` and ``path``.

``neighbors`` and ``path`` call the entries of ``kenning.domain.graph.reads`` (as MCP
``get_neighbors`` and ``find_path`` do), and ``node`` calls ``kenning.domain.graph.node_read``
(as ``get_node`` does): they decide the reader scope, check the arguments and resolve the
keys through the client's aliases, so ``node("Task::T-1")`` and ``node("jira:old-name")``
find the node stored under its canonical key. ``node`` and ``nodes`` read through the
request's loaders.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError
from kenning.domain.graph.model import MAX_NODE_KEYS, Direction, NodeView
from kenning.domain.graph.node_read import NodeAsk, locate
from kenning.domain.graph.path_request import PathEnds
from kenning.domain.graph.reads import NeighborsAsk, PathAsk, find_path, neighbors_of
from kenning.domain.ingestion.aliases import alias_resolved as resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, read_scope, to_scope
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.types import Node, Path, Subgraph


async def alias_resolved(info: Info, reader: Scope, keys: Sequence[str]) -> list[str]:
    """Canonical ``keys`` with the reader's client's aliases resolved."""
    return await resolved(reader.client_id, list(keys), info.context.runtime.aliases)


def _prime(info: Info, reader: Scope, nodes: Sequence[NodeView]) -> None:
    # Edge endpoints of a subgraph or path are among its nodes: no second read for them.
    info.context.loaders.nodes_by_key(reader).prime_many({n.key: n for n in nodes})


AsOf = Annotated[
    datetime | None,
    strawberry.argument(
        description="Answer as the graph was then: only edges valid at that time "
        "(validFrom <= asOf < validTo). A time to come answers as now; null is now."
    ),
]


async def resolve_node(
    info: Info, key: str, scope: NarrowScope = None, as_of: AsOf = None
) -> Node | None:
    """The node with this key as the caller sees it; null when none is visible."""
    ask = NodeAsk(key, as_of, to_scope(scope))
    spot = await locate(caller(info), ask, info.context.runtime.graph_ports())
    view = await info.context.loaders.nodes_by_key(spot.reader).load(spot.key)
    return None if view is None else Node.from_view(view, spot.reader, spot.when)


async def resolve_nodes(
    info: Info, keys: list[str], scope: NarrowScope = None
) -> list[Node | None]:
    """Nodes by key, in the order asked; null where none is visible."""
    reader = read_scope(info, scope)
    if len(keys) > MAX_NODE_KEYS:
        raise TooLargeError(f"at most {MAX_NODE_KEYS} keys", field="keys")
    parsed = [parse_key(key, field="keys").key for key in keys]
    canonical = await alias_resolved(info, reader, parsed)
    views = await info.context.loaders.nodes_by_key(reader).load_many(canonical)
    return [None if view is None else Node.from_view(view, reader) for view in views]


async def resolve_neighbors(
    info: Info,
    key: str,
    depth: int = 1,
    direction: Direction = Direction.BOTH,
    edge_types: list[str] | None = None,
    limit: int = 100,
    scope: NarrowScope = None,
    as_of: AsOf = None,
) -> Subgraph:
    """The subgraph within ``depth`` hops; empty when the node is not visible."""
    ask = NeighborsAsk(key, depth, direction, edge_types, limit, as_of, to_scope(scope))
    read = await neighbors_of(caller(info), ask, info.context.runtime.graph_ports())
    _prime(info, read.reader, read.found.nodes)
    return Subgraph.from_view(read.found, read.reader, read.when)


async def resolve_path(
    info: Info,
    from_key: Annotated[str, strawberry.argument(name="from")],
    to: str,
    max_depth: int = 4,
    edge_types: list[str] | None = None,
    direction: Direction = Direction.BOTH,
    scope: NarrowScope = None,
    as_of: AsOf = None,
) -> Path | None:
    """One shortest path of at most ``maxDepth`` edges; null when there is none."""
    ask = PathAsk(PathEnds(from_key, to), max_depth, edge_types, direction, as_of, to_scope(scope))
    read = await find_path(caller(info), ask, info.context.runtime.graph_ports())
    if read.found is None:
        return None
    _prime(info, read.reader, read.found.nodes)
    return Path.from_view(read.found, read.reader, read.when)
