"""What Kenning writes per document, learned by running its own ingest use case.

``precompute`` runs ``ingest`` over ``RecordingStore`` (a ``KnowledgeStore`` over an empty
store that keeps each write's rows, one ``Stored`` per document) with no aliases and a
constant-time embedder: the rows the ingest benchmark's baseline (``bench._ingest_baseline``)
then writes with raw asyncpg, and the chunks its plain model script encodes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from bench._ingest_database import CLIENT
from bench.corpus import Document
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.ports import WriteUnit
from kenning.domain.ingestion.relations import Declarations
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeEnding,
    EdgeRecord,
    IngestRequest,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)
from kenning.settings import Settings
from kenning.storage.embedders.constant import ConstantTimeEmbedder

T = TypeVar("T")


@dataclass(slots=True)
class Stored:
    """The rows one document writes, as Kenning's own use case computed them."""

    chunks: list[ChunkRecord] = field(default_factory=list)
    nodes: list[NodeRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    sources: list[SourceRecord] = field(default_factory=list)


class RecordingUnit:
    """A ``WriteUnit`` over an empty store that keeps what it is asked to write."""

    def __init__(self, stored: Stored) -> None:
        self.stored = stored

    async def lock_source(self, scope: Scope, source_urn: str) -> None:
        return None

    async def source(self, scope: Scope, source_urn: str) -> SourceRecord | None:
        return None

    async def remove_source(self, scope: Scope, source_urn: str) -> tuple[PurgeCounts, list[str]]:
        return PurgeCounts(), []

    async def remove_files(self, scope: Scope, source_urn: str) -> int:
        return 0

    async def hold_file(self, file_id: str) -> bool:
        return True

    async def write_chunks(self, chunks: Sequence[ChunkRecord]) -> None:
        self.stored.chunks.extend(chunks)

    async def upsert_nodes(
        self, scope: Scope, nodes: Sequence[NodeRecord], provenance: NodeProvenance | None = None
    ) -> None:
        self.stored.nodes.extend(nodes)

    async def upsert_edges(self, scope: Scope, edges: Sequence[EdgeRecord]) -> None:
        self.stored.edges.extend(edges)

    async def record_source(self, record: SourceRecord) -> None:
        self.stored.sources.append(record)

    async def add_mentions(self, scope: Scope, source_urn: str, keys: Collection[str]) -> None:
        return None  # ingest never adds mentions on their own

    async def delete_orphans(self, scope: Scope, keys: Collection[str]) -> int:
        return 0

    async def existing_keys(self, scope: Scope, keys: Collection[str]) -> set[str]:
        return set()

    async def sources_of_connection(self, scope: Scope, connection_id: str) -> list[str]:
        return []

    async def limit_lock_wait(self, seconds: float) -> None:
        return None

    async def supersede(
        self, scope: Scope, sources: Sequence[str], by: str, at: datetime | None
    ) -> None:
        return None  # the baseline's documents name none

    async def end_edges(self, scope: Scope, endings: Sequence[EdgeEnding]) -> int:
        return 0  # only graph extraction ends edges in a write unit

    async def declare_relations(self, client_id: str, declared: Declarations) -> int:
        return 0  # only knowledge files declare relations

    async def merge_alias(self, client_id: str, alias_key: str, canonical_key: str) -> int:
        return 0


class RecordingStore:
    """A ``KnowledgeStore`` that records one ``Stored`` per write."""

    def __init__(self) -> None:
        self.last = Stored()

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return None

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        self.last = Stored()
        return await work(RecordingUnit(self.last))


class NoAliases:
    """An ``AliasResolver`` with no aliases, like the fresh benchmark database."""

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        return {}


async def precompute(docs: Sequence[Document], settings: Settings) -> list[Stored]:
    """What Kenning writes per document (same chunks, vectors, refs, evidence, hashes)."""
    store = RecordingStore()
    deps = IngestDeps(
        store,
        NoAliases(),
        ConstantTimeEmbedder(settings.embedding_dim),
        secret_policy=settings.secret_policy,
        chunk_limit=settings.chunk_limit,
    )
    stored = []
    for doc in docs:
        request = IngestRequest(
            doc.source_urn, doc.kind, doc.content, Scope(CLIENT), main_node_key=doc.main_node_key
        )
        await ingest(request, deps)
        stored.append(store.last)
    return stored
