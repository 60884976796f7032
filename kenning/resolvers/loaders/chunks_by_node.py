"""ChunksByNodeLoader: the newest visible chunks referencing a node, one statement per batch
and limit."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from strawberry.dataloader import DataLoader

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.runtime import Runtime


class Key(NamedTuple):
    """A node key and how many of its chunks to read."""

    node_key: str
    limit: int


Result = list[ChunkView]
ChunksByNodeLoader = DataLoader[Key, Result]


def chunks_by_node_loader(runtime: Runtime, reader: Scope) -> ChunksByNodeLoader:
    """A loader of chunks whose ``graph_refs`` hold the key, newest first."""

    async def load(keys: Sequence[Key]) -> list[Result]:
        by_limit: dict[int, list[str]] = defaultdict(list)
        for key in keys:
            by_limit[key.limit].append(key.node_key)
        found: dict[Key, Result] = {}
        for limit, node_keys in by_limit.items():
            chunks = await runtime.graph.chunks_of(reader, node_keys, limit)
            for node_key in node_keys:
                found[Key(node_key, limit)] = chunks.get(node_key, [])
        return [found[key] for key in keys]

    return DataLoader(load_fn=load)
