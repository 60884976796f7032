"""The ports graph extraction needs besides the write path's: a source's stored chunks, the
cache of model answers, and the current edges a chunk's entities already have; storage
implements them (``kenning.storage.extraction``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from kenning.domain.access.scope import Scope


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as extraction reads it: id, text, the digest of that text, and when its
    source says it was true (its ``observedAt``, else when it was stored; None: now)."""

    id: str
    ordinal: int
    content: str
    content_hash: str
    observed_at: datetime | None = None


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


@dataclass(frozen=True, slots=True)
class CurrentEdge:
    """An edge that holds now, as a contradiction check lists it."""

    from_key: str
    edge_type: str
    to_key: str


class CurrentEdges(Protocol):
    """Reads the edges a chunk might contradict."""

    async def touching(
        self,
        scope: Scope,
        keys: Collection[str],
        *,
        valid_by: datetime | None,
        excluding_source: str,
        limit: int,
    ) -> list[CurrentEdge]:
        """The edges stored at exactly ``scope`` (never a wider or another scope's) that
        hold now, start or end at one of ``keys``, were valid by ``valid_by`` (None: any)
        and cite no chunk of ``excluding_source``; newest ``validFrom`` first, at most
        ``limit``."""
        ...
