"""The one fake of the retrieval ``ChunkIndex`` port: fixed rankings, every question recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.retrieval.search import IndexHit, SearchFilters

# The scope every fake chunk is stored in: the reader of the search use case tests.
CHUNK_SCOPE = Scope("acme", "web", "frontend")


def view(chunk_id: str) -> ChunkView:
    """A stored chunk named `chunk_id`, as the index returns it."""
    return ChunkView(
        id=chunk_id, source_urn=f"doc:{chunk_id}", ordinal=0, kind="note", scope=CHUNK_SCOPE,
        content=f"content of {chunk_id}", graph_refs=(), knowledge_type=None, info_type=None,
        tags=(), source_kind=None, connection_id=None, external_id=None, revision=None,
    )  # fmt: skip


@dataclass
class FakeIndex:
    """Answers from fixed rankings (id, score), best first, and records what it was asked."""

    vector: list[tuple[str, float]] = field(default_factory=list)
    keyword: list[tuple[str, float]] = field(default_factory=list)
    asked: list[tuple[str, Scope, SearchFilters, int]] = field(default_factory=list)
    keyword_delay: float = 0.0
    keyword_finished: bool = False

    async def nearest(
        self, embedding: Sequence[float], reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        self.asked.append(("nearest", reader, filters, limit))
        return [IndexHit(view(i), s) for i, s in self.vector[:limit]]

    async def matching(
        self, text: str, reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        self.asked.append(("matching", reader, filters, limit))
        await asyncio.sleep(self.keyword_delay)
        self.keyword_finished = True
        return [IndexHit(view(i), s) for i, s in self.keyword[:limit]]
