"""The search use cases as every face runs them: GraphQL ``search`` and ``chunksByKind``
(``resolvers/retrieval/search.py``) and MCP ``search_knowledge`` (``mcp/search_tools.py``).

``SearchService`` is built once by the runtime with the server's search configuration (fusion
weights, the largest limit, where timings are counted); a face hands it the caller and a
``SearchAsk`` and gets plain hits back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.errors import ValidationError
from kenning.domain.graph.chunk_view import ChunkReader, ChunkView
from kenning.domain.retrieval.search import (
    ChunkIndex,
    FusionWeights,
    SearchHit,
    SearchRequest,
    config_for,
    search,
)


@dataclass(frozen=True, slots=True)
class SearchAsk:
    """One search as a caller asks it: the request, the scope argument (None: the key's own)
    and the user searched for (None: shared user knowledge only)."""

    request: SearchRequest
    scope: Scope | None = None
    user_key: str | None = None


@dataclass(frozen=True, slots=True)
class SearchService:
    """Search under the server's configuration.

    ``index_for`` gives the chunk index one user's search reads (another user's knowledge
    left out); it raises ``ValidationError`` for a bad user key. ``observe`` is told each
    finished search's mode and seconds.
    """

    embedder: Embedder
    index_for: Callable[[str | None], ChunkIndex]
    chunks: ChunkReader
    fusion: FusionWeights
    max_limit: int
    observe: Callable[[str, float], None]

    async def search(self, caller: CallerScope, ask: SearchAsk) -> list[SearchHit]:
        """The best hits the caller may see, best first; ``ValidationError`` for bad input."""
        reader = caller.reading(ask.scope)
        index = self.index_for(ask.user_key)
        mode = ask.request.mode
        started = time.perf_counter()
        hits = await search(
            ask.request,
            reader=reader,
            embedder=self.embedder,
            index=index,
            config=config_for(mode, self.fusion),
            max_limit=self.max_limit,
        )
        self.observe(mode.value, time.perf_counter() - started)
        return hits

    async def chunks_by_kind(
        self, caller: CallerScope, kind: str, limit: int, scope: Scope | None = None
    ) -> list[ChunkView]:
        """The newest visible chunks of one kind; never embeds anything."""
        reader = caller.reading(scope)
        if not kind.strip():
            raise ValidationError("kind must not be empty", field="kind")
        if not 1 <= limit <= self.max_limit:
            raise ValidationError(f"limit must be between 1 and {self.max_limit}", field="limit")
        return await self.chunks.by_kind(kind, reader, limit)
