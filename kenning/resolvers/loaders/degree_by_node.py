"""DegreeByNodeLoader: how many visible edges touch a node, one statement per batch."""

from __future__ import annotations

from collections.abc import Sequence

from strawberry.dataloader import DataLoader

from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime

Key = str
Result = int
DegreeByNodeLoader = DataLoader[Key, Result]


def degree_by_node_loader(runtime: Runtime, reader: Scope) -> DegreeByNodeLoader:
    """A loader of node degrees (both directions, every edge type) as ``reader`` sees them."""

    async def load(keys: Sequence[Key]) -> list[Result]:
        found = await runtime.graph.degrees(reader, keys)
        return [found.get(key, 0) for key in keys]

    return DataLoader(load_fn=load)
