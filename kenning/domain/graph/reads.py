"""The graph reads as every face runs them: GraphQL ``path``, ``neighbors`` and ``findNodes``
(``resolvers/graph/``) and MCP ``find_path``, ``get_neighbors`` and ``find_nodes``
(``mcp/read_tools.py``, ``mcp/graph_tools.py``).

Each entry takes the caller and a plain request, decides the reader scope, checks the
arguments, parses and resolves the keys through the reader's client's aliases, and answers
with the reader and the time it read at (GraphQL's types need both for their fields).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.graph.find import NodeFinder, NodeMatch, find_nodes, find_query
from kenning.domain.graph.model import (
    MAX_SUBGRAPH_LIMIT,
    Direction,
    GraphReader,
    PathView,
    SubgraphView,
    check_depth,
    check_range,
    edge_type_filter,
)
from kenning.domain.graph.path_request import PathEnds, path_between
from kenning.domain.graph.traverse import NeighborsQuery, neighbors
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.ports import AliasResolver
from kenning.domain.ingestion.validity import as_of as read_time

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GraphPorts:
    """What the graph reads use: the reader, the node finder and the alias book."""

    graph: GraphReader
    finder: NodeFinder
    aliases: AliasResolver


@dataclass(frozen=True, slots=True)
class Read(Generic[T]):
    """What a read found, the scope it read at, and the time it answered as (None: now)."""

    found: T
    reader: Scope
    when: datetime | None = None


@dataclass(frozen=True, slots=True)
class PathAsk:
    """``path``: the two keys as typed, the argument names an error about each names."""

    ends: PathEnds
    max_depth: int = 4
    edge_types: Sequence[str] | None = None
    direction: Direction = Direction.BOTH
    as_of: datetime | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class NeighborsAsk:
    """``neighbors``: the start key as typed and how far to expand; the depth, limit and
    edge types are checked as it is made (``ValidationError`` naming the argument)."""

    key: str
    depth: int = 1
    direction: Direction = Direction.BOTH
    edge_types: Sequence[str] | None = None
    limit: int = 100
    as_of: datetime | None = None
    scope: Scope | None = None

    def __post_init__(self) -> None:
        check_depth(self.depth)
        check_range(self.limit, 1, MAX_SUBGRAPH_LIMIT, "limit")
        edge_type_filter(self.edge_types)


@dataclass(frozen=True, slots=True)
class FindAsk:
    """``findNodes``: what the person typed, the node types and how many matches."""

    query: str
    types: Sequence[str] | None = None
    limit: int = 20
    scope: Scope | None = None


def read_at(as_of: datetime | None, now: datetime | None = None) -> datetime | None:
    """The time a read answers as: ``as_of``, a time to come read as now (None)."""
    return read_time(as_of, now or datetime.now(UTC))


async def find_path(caller: CallerScope, ask: PathAsk, ports: GraphPorts) -> Read[PathView | None]:
    """One shortest path of at most ``max_depth`` edges between the ends (None: none)."""
    reader = caller.reading(ask.scope)
    when = read_at(ask.as_of)
    found = await path_between(
        ports.graph.at(when),
        reader,
        ask.ends,
        ports.aliases,
        max_depth=ask.max_depth,
        direction=ask.direction,
        edge_types=None if ask.edge_types is None else list(ask.edge_types),
    )
    return Read(found, reader, when)


async def neighbors_of(
    caller: CallerScope, ask: NeighborsAsk, ports: GraphPorts
) -> Read[SubgraphView]:
    """The subgraph within ``depth`` hops of the key; empty when the node is not visible."""
    reader = caller.reading(ask.scope)
    types = edge_type_filter(ask.edge_types)
    [start] = await alias_resolved(reader.client_id, [parse_key(ask.key).key], ports.aliases)
    when = read_at(ask.as_of)
    query = NeighborsQuery(start, ask.depth, ask.direction, types, ask.limit)
    return Read(await neighbors(ports.graph.at(when), reader, query), reader, when)


async def found_nodes(
    caller: CallerScope, ask: FindAsk, ports: GraphPorts
) -> Read[list[NodeMatch]]:
    """The visible nodes best matching the query, best first."""
    reader = caller.reading(ask.scope)
    request = find_query(ask.query, ask.types, ask.limit)
    if request.exact_key is not None:
        [exact] = await alias_resolved(reader.client_id, [request.exact_key], ports.aliases)
        request = dataclasses.replace(request, exact_key=exact)
    return Read(await find_nodes(ports.finder, ports.graph, reader, request), reader)
