"""NodesByKeyLoader: visible nodes by canonical key, one statement per batch."""

from __future__ import annotations

from collections.abc import Sequence

from strawberry.dataloader import DataLoader

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import NodeView
from kenning.runtime import Runtime

Key = str
Result = NodeView | None
NodesByKeyLoader = DataLoader[Key, Result]


def nodes_by_key_loader(runtime: Runtime, reader: Scope) -> NodesByKeyLoader:
    """A loader answering ``None`` for keys with no vertex ``reader`` may see."""

    async def load(keys: Sequence[Key]) -> list[Result]:
        found = await runtime.graph.nodes(reader, keys)
        return [found.get(key) for key in keys]

    return DataLoader(load_fn=load)
