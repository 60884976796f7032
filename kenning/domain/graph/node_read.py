"""A node looked up by the key a caller typed, as GraphQL ``node``
(``resolvers/graph/queries.py``) and MCP ``get_node`` (``mcp/graph_tools.py``) both do it:
``locate`` decides the reader scope, parses the key and resolves it through the reader's
client's aliases, and picks the time to answer as; GraphQL then reads the node through its
request's loader, and ``node_card`` reads it with its edges for MCP.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import MAX_NODE_EDGES, Direction, EdgeView, NodeView, check_range
from kenning.domain.graph.reads import GraphPorts, read_at
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key


@dataclass(frozen=True, slots=True)
class NodeAsk:
    """A node's key as typed, the time to answer as (None: now) and the scope argument."""

    key: str
    as_of: datetime | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class NodeSpot:
    """The canonical key to read, the scope to read it at, and the time (None: now)."""

    key: str
    reader: Scope
    when: datetime | None


@dataclass(frozen=True, slots=True)
class NodeCard:
    """A node (None: not visible), its edges valid then, and its ended edges when asked."""

    node: NodeView | None
    edges: list[EdgeView]
    history: list[EdgeView] | None = None


async def locate(caller: CallerScope, ask: NodeAsk, ports: GraphPorts) -> NodeSpot:
    """Where the node ``ask`` names is read: its canonical key, the reader and the time."""
    reader = caller.reading(ask.scope)
    [key] = await alias_resolved(reader.client_id, [parse_key(ask.key).key], ports.aliases)
    return NodeSpot(key, reader, read_at(ask.as_of))


async def node_card(
    caller: CallerScope, ask: NodeAsk, ports: GraphPorts, *, history: bool, edge_limit: int
) -> NodeCard:
    """The node and at most ``edge_limit`` of its edges (1..500, ``edge_limit`` named in an
    error), with the ended ones too when ``history``."""
    check_range(edge_limit, 1, MAX_NODE_EDGES, "edge_limit")
    spot = await locate(caller, ask, ports)
    graph, reader, key = ports.graph.at(spot.when), spot.reader, spot.key
    node = (await graph.nodes(reader, [key])).get(key)
    if node is None:
        return NodeCard(None, [])
    held = (await graph.edges_of(reader, [key], Direction.BOTH, None, edge_limit)).get(key, [])
    if not history:
        return NodeCard(node, held)
    every = (await graph.every_edge_of(reader, [key], edge_limit)).get(key, [])
    kept = {edge.id for edge in held}
    return NodeCard(node, held, [edge for edge in every if edge.id not in kept])
