"""The fakes of graph extraction's ports (``kenning.domain.extraction.ports``): a source's
stored chunks, the answer cache and the current edges, in memory."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.ports import CacheKey, CurrentEdge, StoredChunk


def stored_chunk(
    chunk_id: str, content: str, ordinal: int = 0, observed_at: datetime | None = None
) -> StoredChunk:
    """A stored chunk whose hash is its content's, as storage computes it."""
    digest = hashlib.sha256(content.encode()).hexdigest()
    return StoredChunk(chunk_id, ordinal, content, digest, observed_at)


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


class FakeCurrentEdges:
    """Current edges per scope, in the order given (newest first); ``asked`` records each
    call's (scope, keys, valid_by, excluding_source, limit)."""

    def __init__(self, edges: dict[Scope, list[CurrentEdge]] | None = None) -> None:
        self.edges = edges or {}
        self.asked: list[tuple[Scope, frozenset[str], datetime | None, str, int]] = []

    async def touching(
        self,
        scope: Scope,
        keys: Collection[str],
        *,
        valid_by: datetime | None,
        excluding_source: str,
        limit: int,
    ) -> list[CurrentEdge]:
        self.asked.append((scope, frozenset(keys), valid_by, excluding_source, limit))
        found = [e for e in self.edges.get(scope, []) if {e.from_key, e.to_key} & set(keys)]
        return found[:limit]
