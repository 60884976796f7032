"""The ports graph extraction needs besides the write path's: a source's stored chunks and
the cache of model answers; storage implements them (``kenning.storage.extraction``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from kenning.domain.access.scope import Scope


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as extraction reads it: id, text and the digest of that text."""

    id: str
    ordinal: int
    content: str
    content_hash: str


@dataclass(frozen=True, slots=True)
class CacheKey:
    """What makes two extractions the same: whose, which text, which model and prompt."""

    client_id: str
    model: str
    prompt_version: str


class SourceChunks(Protocol):
    """Reads one source's chunks (exactly at its scope)."""

    async def chunks_of(self, scope: Scope, source_urn: str) -> list[StoredChunk]:
        """The source's chunks in order; empty when the source is not stored."""
        ...


class ExtractionCache(Protocol):
    """Model answers per (client, chunk content hash, model, prompt version)."""

    async def get_many(
        self, key: CacheKey, content_hashes: Collection[str]
    ) -> dict[str, Mapping[str, Any]]:
        """The stored answers of those hashes that have one."""
        ...

    async def put(self, key: CacheKey, content_hash: str, result: Mapping[str, Any]) -> None:
        """Store (or replace) one answer; committed at once, so a crash keeps it."""
        ...
