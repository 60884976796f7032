"""EdgesByNodeLoader: a node's visible edges, one statement per batch and edge query shape."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from strawberry.dataloader import DataLoader

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import Direction, EdgeView
from kenning.runtime import Runtime


class Key(NamedTuple):
    """A node key and what to read of its edges (edge types normalized and sorted), as of
    a time (None: now)."""

    node_key: str
    direction: Direction
    edge_types: tuple[str, ...] | None
    limit: int
    as_of: datetime | None = None


Result = list[EdgeView]
EdgesByNodeLoader = DataLoader[Key, Result]


def edges_by_node_loader(runtime: Runtime, reader: Scope) -> EdgesByNodeLoader:
    """A loader of at most ``limit`` edges per node, in the reader's stable edge order.

    Keys asking the same (direction, edge types, limit) share one statement; a request
    usually has one such shape per ``edges`` selection.
    """

    async def load(keys: Sequence[Key]) -> list[Result]:
        Shape = tuple[Direction, tuple[str, ...] | None, int, datetime | None]
        shapes: dict[Shape, list[str]] = defaultdict(list)
        for key in keys:
            shapes[(key.direction, key.edge_types, key.limit, key.as_of)].append(key.node_key)
        found: dict[Key, Result] = {}
        for (direction, edge_types, limit, as_of), node_keys in shapes.items():
            graph = runtime.graph.at(as_of)
            edges = await graph.edges_of(reader, node_keys, direction, edge_types, limit)
            for node_key in node_keys:
                found[Key(node_key, direction, edge_types, limit, as_of)] = edges.get(node_key, [])
        return [found[key] for key in keys]

    return DataLoader(load_fn=load)
