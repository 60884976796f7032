"""The chunk lookup of ``chunks_for`` over a request's loaders, so a GraphQL read by id
batches with the request's other chunk reads (one statement per reader scope)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import ChunkView

if TYPE_CHECKING:
    from kenning.resolvers.loaders import Loaders


class LoadedChunks:
    """``ChunksById`` through ``Loaders.chunks_by_id``."""

    def __init__(self, loaders: Loaders) -> None:
        self._loaders = loaders

    async def by_ids(self, ids: Sequence[str], reader: Scope) -> dict[str, ChunkView]:
        """The visible chunks among ``ids``, keyed by id."""
        views = await self._loaders.chunks_by_id(reader).load_many(list(ids))
        return {view.id: view for view in views if view is not None}
