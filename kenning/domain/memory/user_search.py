"""Search for one user: the knowledge base as it is, but another user's knowledge left out.

A user-knowledge chunk of one user (``metadata.userKey``) is a hit only of a search for that
user; shared user knowledge and every other chunk are hits of any search, as before. A search
for no user thus finds no user's own knowledge. ``UserIndex`` wraps the ``ChunkIndex`` so the
rule holds in every search mode: each list is read ``SLACK`` rows deeper than asked and cut
back after the filter, so a few left-out chunks do not shorten the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.memory.user_knowledge import KIND_PREFIX
from kenning.domain.retrieval.search import ChunkIndex, IndexHit, SearchFilters

SLACK: Final = 20


def chunk_user(chunk: ChunkView) -> str | None:
    """The user a user-knowledge chunk belongs to; None for a shared or any other chunk."""
    if not chunk.kind.startswith(KIND_PREFIX):
        return None
    owner = chunk.metadata.get("userKey")
    return owner if isinstance(owner, str) else None


def for_user(chunk: ChunkView, user_key: str | None) -> bool:
    """Whether a search for ``user_key`` (None: no user) may return ``chunk``."""
    owner = chunk_user(chunk)
    return owner is None or owner == user_key


class UserIndex:
    """``index`` with the user knowledge of users other than ``user_key`` left out."""

    def __init__(self, index: ChunkIndex, user_key: str | None) -> None:
        self._index = index
        self._user = user_key

    def _kept(self, hits: list[IndexHit], limit: int) -> list[IndexHit]:
        return [hit for hit in hits if for_user(hit.chunk, self._user)][:limit]

    async def nearest(
        self, embedding: Sequence[float], reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Up to ``limit`` chunks by cosine similarity, this user's view."""
        found = await self._index.nearest(embedding, reader, filters, limit + SLACK)
        return self._kept(found, limit)

    async def matching(
        self, text: str, reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Up to ``limit`` chunks by BM25, this user's view."""
        return self._kept(await self._index.matching(text, reader, filters, limit + SLACK), limit)
