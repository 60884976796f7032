"""Traversals over a ``GraphReader``: a bounded neighbourhood and one shortest path.

Both expand level by level, one ``GraphReader`` call (one SQL statement) per level, so a
depth-3 neighbourhood costs four statements and a path of length six at most eight.

**Neighbours.** Breadth-first from the start node up to ``depth`` hops. ``limit`` bounds
both the nodes besides the start and the edges. The subgraph holds every edge traversed
within ``depth`` hops whose ends are both in it (edges among the nodes of the last level
would need one more hop and are not fetched). Edges are taken in the reader's stable order
(type, from, to, id); an edge is skipped when it would exceed a bound, and the expansion
stops after the level where that first happened, with ``truncated`` set.

**Path.** Bidirectional breadth-first search: each step expands, by one full level, the
side with the smaller frontier; the first level at which the sides meet holds a shortest
path, and among the meeting nodes the one with the least total length (then the smallest
key) is taken, so the answer is deterministic. The search gives up (no path) once the two
radii add up to ``max_depth``. Each level reads at most ``level_limit`` edges; a level cut
by it continues with what it read, which bounds the work on hub nodes at the price of
possibly missing the shortest path through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import (
    Direction,
    EdgeView,
    GraphReader,
    Hop,
    PathView,
    SubgraphView,
)

PATH_LEVEL_LIMIT = 100_000


@dataclass(frozen=True, slots=True)
class NeighborsQuery:
    """What ``neighbors`` expands: arguments already validated and keys resolved."""

    key: str
    depth: int
    direction: Direction
    edge_types: tuple[str, ...] | None
    limit: int


async def neighbors(graph: GraphReader, reader: Scope, query: NeighborsQuery) -> SubgraphView:
    """The subgraph around ``query.key``; empty when the node is not visible."""
    seen: dict[str, None] = {query.key: None}  # insertion-ordered set: BFS order
    edges: dict[int, EdgeView] = {}
    frontier = [query.key]
    truncated = False
    for _ in range(query.depth):
        # At most `limit` edges can be kept, and at most len(edges) of the rows are edges
        # already kept: one more row than that proves something was left out.
        rows = await graph.expand(
            reader, frontier, query.direction, query.edge_types, query.limit + 1
        )
        found: list[str] = []
        for edge in rows:
            if edge.id in edges:
                continue
            new = [k for k in (edge.from_key, edge.to_key) if k not in seen]
            if len(edges) >= query.limit or (new and len(seen) - 1 >= query.limit):
                truncated = True
                continue
            for key in new:
                seen[key] = None
                found.append(key)
            edges[edge.id] = edge
        if truncated or not found:
            break
        frontier = found
    nodes = await graph.nodes(reader, list(seen))
    if query.key not in nodes:
        return SubgraphView()
    kept = tuple(e for e in edges.values() if e.from_key in nodes and e.to_key in nodes)
    return SubgraphView(tuple(nodes[k] for k in seen if k in nodes), kept, truncated)


@dataclass(slots=True)
class _Side:
    """One side of the bidirectional search: key → (distance, edge id, key toward root)."""

    root: str
    direction: Direction
    reached: dict[str, tuple[int, int, str]]
    frontier: list[str]
    radius: int = 0

    def step(self, hops: Sequence[Hop]) -> list[str]:
        """Record the keys first reached through ``hops``; return them in order."""
        on_frontier = set(self.frontier)
        found: list[str] = []
        for hop in hops:
            for near, far in _ends(hop, self.direction):
                if near in on_frontier and far != self.root and far not in self.reached:
                    self.reached[far] = (self.radius + 1, hop.edge_id, near)
                    found.append(far)
        self.radius += 1
        self.frontier = found
        return found

    def trail(self, key: str) -> list[tuple[int, str]]:
        """(edge id, next key) pairs from ``key`` back to this side's root."""
        steps: list[tuple[int, str]] = []
        while key in self.reached:
            _, edge_id, toward = self.reached[key]
            steps.append((edge_id, toward))
            key = toward
        return steps


def _ends(hop: Hop, direction: Direction) -> list[tuple[str, str]]:
    if direction is Direction.OUT:
        return [(hop.from_key, hop.to_key)]
    if direction is Direction.IN:
        return [(hop.to_key, hop.from_key)]
    return [(hop.from_key, hop.to_key), (hop.to_key, hop.from_key)]


async def shortest_path(
    graph: GraphReader,
    reader: Scope,
    source: str,
    target: str,
    *,
    max_depth: int,
    direction: Direction = Direction.BOTH,
    edge_types: tuple[str, ...] | None = None,
    level_limit: int = PATH_LEVEL_LIMIT,
) -> PathView | None:
    """One shortest path from ``source`` to ``target`` of at most ``max_depth`` edges."""
    if source == target:
        found = await graph.nodes(reader, [source])
        return PathView((found[source],), ()) if source in found else None
    forward = _Side(source, direction, {}, [source])
    backward = _Side(target, direction.reverse, {}, [target])
    while forward.radius + backward.radius < max_depth and forward.frontier and backward.frontier:
        side = forward if len(forward.frontier) <= len(backward.frontier) else backward
        other = backward if side is forward else forward
        hops = await graph.hops(reader, side.frontier, side.direction, edge_types, level_limit)
        new = side.step(hops)
        meeting = [k for k in new if k in other.reached or k == other.root]
        if meeting:
            best = min(meeting, key=lambda k: (_distance(forward, k) + _distance(backward, k), k))
            return await _materialize(graph, reader, source, forward, backward, best)
    return None


def _distance(side: _Side, key: str) -> int:
    entry = side.reached.get(key)
    return entry[0] if entry else 0


async def _materialize(
    graph: GraphReader, reader: Scope, source: str, forward: _Side, backward: _Side, meet: str
) -> PathView | None:
    head = list(reversed(forward.trail(meet)))  # from source up to the meeting node
    keys = [source] + [key for _, key in head[1:]] + ([meet] if meet != source else [])
    edge_ids = [edge_id for edge_id, _ in head]
    for edge_id, key in backward.trail(meet):
        edge_ids.append(edge_id)
        keys.append(key)
    nodes = await graph.nodes(reader, keys)
    edges = await graph.edges_by_ids(reader, edge_ids)
    if any(k not in nodes for k in keys) or any(i not in edges for i in edge_ids):
        return None  # changed under us between the levels and the final read
    return PathView(tuple(nodes[k] for k in keys), tuple(edges[i] for i in edge_ids))
