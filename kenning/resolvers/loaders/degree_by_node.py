"""DegreeByNodeLoader: how many visible edges touch a node, one statement per batch and time."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from strawberry.dataloader import DataLoader

from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime


class Key(NamedTuple):
    """A node key, and the time its edges are counted at (None: now)."""

    node_key: str
    as_of: datetime | None = None


Result = int
DegreeByNodeLoader = DataLoader[Key, Result]


def degree_by_node_loader(runtime: Runtime, reader: Scope) -> DegreeByNodeLoader:
    """A loader of node degrees (both directions, every edge type, the edges valid at the
    key's time) as ``reader`` sees them; keys of one time share one statement."""

    async def load(keys: Sequence[Key]) -> list[Result]:
        by_time: dict[datetime | None, list[str]] = defaultdict(list)
        for key in keys:
            by_time[key.as_of].append(key.node_key)
        found: dict[Key, Result] = {}
        for as_of, node_keys in by_time.items():
            degrees = await runtime.graph.at(as_of).degrees(reader, node_keys)
            found.update({Key(k, as_of): degrees.get(k, 0) for k in node_keys})
        return [found[key] for key in keys]

    return DataLoader(load_fn=load)
