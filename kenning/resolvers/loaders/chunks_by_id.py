"""ChunksByIdLoader: visible chunks by id, one statement per batch."""

from __future__ import annotations

from collections.abc import Sequence

from strawberry.dataloader import DataLoader

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.runtime import Runtime

Key = str
Result = ChunkView | None
ChunksByIdLoader = DataLoader[Key, Result]


def chunks_by_id_loader(runtime: Runtime, reader: Scope) -> ChunksByIdLoader:
    """A loader answering ``None`` for chunks that do not exist or are not visible."""

    async def load(ids: Sequence[Key]) -> list[Result]:
        found = await runtime.chunks.by_ids(ids, reader)
        return [found.get(chunk_id) for chunk_id in ids]

    return DataLoader(load_fn=load)
