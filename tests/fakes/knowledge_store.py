"""The one fake of the ingestion ``KnowledgeStore`` port and its write unit, and of the
``AliasResolver`` port: all in memory, recording what they were asked to store."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import datetime
from typing import Any, TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.relations import Declarations
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeEnding,
    EdgeRecord,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)

T = TypeVar("T")


class FakeUnit:
    """Records what a write unit was asked to store."""

    def __init__(self, store: FakeStore) -> None:
        self.store = store

    async def lock_source(self, scope: Scope, source_urn: str) -> None:
        self.store.calls.append("lock")

    async def source(self, scope: Scope, source_urn: str) -> SourceRecord | None:
        return self.store.sources.get(source_urn)

    async def remove_source(self, scope: Scope, source_urn: str) -> tuple[PurgeCounts, list[str]]:
        old = self.store.sources.pop(source_urn, None)
        return PurgeCounts(chunks=len(old.chunk_ids) if old else 0), list(
            old.mentions if old else ()
        )

    async def remove_files(self, scope: Scope, source_urn: str) -> int:
        self.store.calls.append("remove_files")
        return 0

    async def hold_file(self, file_id: str) -> bool:
        return file_id not in self.store.purged_files

    async def write_chunks(self, chunks: Sequence[ChunkRecord]) -> None:
        self.store.chunks.extend(chunks)

    async def upsert_nodes(
        self, scope: Scope, nodes: Sequence[NodeRecord], provenance: NodeProvenance | None = None
    ) -> None:
        self.store.nodes.extend(nodes)
        self.store.provenances.append(provenance)

    async def upsert_edges(self, scope: Scope, edges: Sequence[EdgeRecord]) -> None:
        self.store.edges.extend(edges)

    async def record_source(self, record: SourceRecord) -> None:
        self.store.sources[record.source_urn] = record

    async def add_mentions(self, scope: Scope, source_urn: str, keys: Collection[str]) -> None:
        record = self.store.sources[source_urn]
        mentions = tuple(sorted({*record.mentions, *keys}))
        self.store.sources[source_urn] = dataclasses.replace(record, mentions=mentions)

    async def delete_orphans(self, scope: Scope, keys: Collection[str]) -> int:
        return 0

    async def existing_keys(self, scope: Scope, keys: Collection[str]) -> set[str]:
        return set()

    async def sources_of_connection(self, scope: Scope, connection_id: str) -> list[str]:
        return []

    async def limit_lock_wait(self, seconds: float) -> None:
        self.store.calls.append("limit_lock_wait")

    async def supersede(
        self, scope: Scope, sources: Sequence[str], by: str, at: datetime | None
    ) -> None:
        self.store.calls.append("supersede")

    async def end_edges(self, scope: Scope, endings: Sequence[EdgeEnding]) -> int:
        self.store.endings.extend(endings)
        return len(endings)

    async def declare_relations(self, client_id: str, declared: Declarations) -> int:
        self.store.declared.append(declared)
        return 0

    async def merge_alias(self, client_id: str, alias_key: str, canonical_key: str) -> int:
        return 0


class FakeStore:
    def __init__(self, retries: int = 0) -> None:
        # Attempts rolled back before the one that commits, as a deadlock retry would.
        self.retries = retries
        self.sources: dict[str, SourceRecord] = {}
        self.chunks: list[ChunkRecord] = []
        self.nodes: list[NodeRecord] = []
        # Who stated each upsert_nodes call's properties, in call order.
        self.provenances: list[NodeProvenance | None] = []
        self.edges: list[EdgeRecord] = []
        self.endings: list[EdgeEnding] = []
        self.declared: list[Declarations] = []
        self.calls: list[str] = []
        self.writes = 0
        # Stored originals a purge deleted: a write holding one of them finds it gone.
        self.purged_files: set[str] = set()

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        record = self.sources.get(source_urn)
        return record.content_hash if record else None

    async def write(self, work: Callable[[Any], Awaitable[T]]) -> T:
        self.writes += 1
        for _ in range(self.retries):
            await work(FakeUnit(FakeStore()))  # rolled back: what it wrote vanishes
        return await work(FakeUnit(self))


class FakeAliases:
    def __init__(self, aliases: dict[str, str] | None = None) -> None:
        self.aliases = aliases or {}

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        return {k: self.aliases[k] for k in keys if k in self.aliases}
