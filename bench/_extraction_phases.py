"""Where the extraction stage's time goes: the ports ``extract_source`` runs with, wrapped to
add up the seconds spent in each (chunks read, cache read and write, aliases, graph write).
What is left of the stage is Python in the domain: validation, merge, logging."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.ports import CacheKey, ExtractionCache, SourceChunks, StoredChunk
from kenning.domain.ingestion.ports import AliasResolver, KnowledgeStore, WriteUnit

T = TypeVar("T")


class Phases:
    """Seconds per phase, summed over every call."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)

    async def timed(self, phase: str, work: Awaitable[T]) -> T:
        started = time.perf_counter()
        try:
            return await work
        finally:
            self.seconds[phase] += time.perf_counter() - started

    def snapshot(self) -> dict[str, float]:
        return dict(self.seconds)


class TimedChunks:
    def __init__(self, inner: SourceChunks, phases: Phases) -> None:
        self.inner, self.phases = inner, phases

    async def chunks_of(self, scope: Scope, source_urn: str) -> list[StoredChunk]:
        return await self.phases.timed("chunks_read", self.inner.chunks_of(scope, source_urn))


class TimedCache:
    def __init__(self, inner: ExtractionCache, phases: Phases) -> None:
        self.inner, self.phases = inner, phases

    async def get_many(
        self, key: CacheKey, content_hashes: Collection[str]
    ) -> dict[str, Mapping[str, Any]]:
        return await self.phases.timed("cache_read", self.inner.get_many(key, content_hashes))

    async def put(self, key: CacheKey, content_hash: str, result: Mapping[str, Any]) -> None:
        await self.phases.timed("cache_write", self.inner.put(key, content_hash, result))


class TimedAliases:
    def __init__(self, inner: AliasResolver, phases: Phases) -> None:
        self.inner, self.phases = inner, phases

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        return await self.phases.timed("aliases", self.inner.resolve(client_id, keys))


class TimedStore:
    def __init__(self, inner: KnowledgeStore, phases: Phases) -> None:
        self.inner, self.phases = inner, phases

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self.inner.source_hash(scope, source_urn)

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        return await self.phases.timed("graph_write", self.inner.write(work))
