"""The fakes of graph extraction's ports (``kenning.domain.extraction.ports``): a source's
stored chunks and the answer cache, in memory."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.ports import CacheKey, StoredChunk


def stored_chunk(chunk_id: str, content: str, ordinal: int = 0) -> StoredChunk:
    """A stored chunk whose hash is its content's, as storage computes it."""
    return StoredChunk(chunk_id, ordinal, content, hashlib.sha256(content.encode()).hexdigest())


class FakeSourceChunks:
    """Chunks per source URN (any scope)."""

    def __init__(self, chunks: dict[str, list[StoredChunk]] | None = None) -> None:
        self.chunks = chunks or {}

    async def chunks_of(self, scope: Scope, source_urn: str) -> list[StoredChunk]:
        return list(self.chunks.get(source_urn, []))


class FakeExtractionCache:
    """Answers by (client, model, prompt version, content hash); ``puts`` counts writes."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str, str, str], Mapping[str, Any]] = {}
        self.puts = 0

    async def get_many(
        self, key: CacheKey, content_hashes: Collection[str]
    ) -> dict[str, Mapping[str, Any]]:
        found = {}
        for digest in content_hashes:
            entry = self.entries.get((key.client_id, key.model, key.prompt_version, digest))
            if entry is not None:
                found[digest] = entry
        return found

    async def put(self, key: CacheKey, content_hash: str, result: Mapping[str, Any]) -> None:
        self.puts += 1
        self.entries[(key.client_id, key.model, key.prompt_version, content_hash)] = result
