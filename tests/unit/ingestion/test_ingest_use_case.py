"""The ingest use case over fakes of its ports: what is embedded, stored and skipped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, TypeVar

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import EmbeddingError
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeRecord,
    IngestRequest,
    IngestStatus,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)
from kenning.domain.ingestion.secrets.findings import SensitiveContentError

T = TypeVar("T")
SCOPE = Scope("acme")


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

    async def write_chunks(self, chunks: Sequence[ChunkRecord]) -> None:
        self.store.chunks.extend(chunks)

    async def upsert_nodes(self, scope: Scope, nodes: Sequence[NodeRecord]) -> None:
        self.store.nodes.extend(nodes)

    async def upsert_edges(self, scope: Scope, edges: Sequence[EdgeRecord]) -> None:
        self.store.edges.extend(edges)

    async def record_source(self, record: SourceRecord) -> None:
        self.store.sources[record.source_urn] = record

    async def delete_orphans(self, scope: Scope, keys: Collection[str]) -> int:
        return 0

    async def existing_keys(self, scope: Scope, keys: Collection[str]) -> set[str]:
        return set()

    async def sources_of_connection(self, scope: Scope, connection_id: str) -> list[str]:
        return []

    async def merge_alias(self, client_id: str, alias_key: str, canonical_key: str) -> int:
        return 0


class FakeStore:
    def __init__(self) -> None:
        self.sources: dict[str, SourceRecord] = {}
        self.chunks: list[ChunkRecord] = []
        self.nodes: list[NodeRecord] = []
        self.edges: list[EdgeRecord] = []
        self.calls: list[str] = []
        self.writes = 0

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        record = self.sources.get(source_urn)
        return record.content_hash if record else None

    async def write(self, work: Callable[[Any], Awaitable[T]]) -> T:
        self.writes += 1
        return await work(FakeUnit(self))


class FakeAliases:
    def __init__(self, aliases: dict[str, str] | None = None) -> None:
        self.aliases = aliases or {}

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        return {k: self.aliases[k] for k in keys if k in self.aliases}


class FakeEmbedder:
    model = "fake"
    dimension = 3

    def __init__(self, *, short: bool = False) -> None:
        self.batches: list[list[str]] = []
        self.short = short

    async def embed(self, texts: Sequence[str], *, priority: int = 3) -> list[list[float]]:
        self.batches.append(list(texts))
        vectors = [[1.0, 0.0, 0.0] for _ in texts]
        return vectors[:-1] if self.short else vectors

    async def aclose(self) -> None:
        return None


def deps(
    store: FakeStore, embedder: FakeEmbedder, aliases: dict[str, str] | None = None
) -> IngestDeps:
    return IngestDeps(store=store, aliases=FakeAliases(aliases), embedder=embedder, chunk_limit=200)


def request(content: str, **extra: Any) -> IngestRequest:
    return IngestRequest(source_urn="doc:1", kind="note", content=content, scope=SCOPE, **extra)


async def test_unchanged_content_makes_no_embedding_call_and_no_write() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    first = await ingest(request("user:ann|OWNS|service:x"), deps(store, embedder))
    assert first.status is IngestStatus.INDEXED
    second = await ingest(request("user:ann|OWNS|service:x"), deps(store, embedder))
    assert second.status is IngestStatus.SKIPPED_DUPLICATE
    assert len(embedder.batches) == 1 and store.writes == 1


async def test_secrets_are_caught_before_anything_is_embedded_or_stored() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    with pytest.raises(SensitiveContentError) as caught:
        await ingest(request("deploy with AKIAIOSFODNN7EXAMPLF please"), deps(store, embedder))
    assert caught.value.findings[0].line == 1
    assert embedder.batches == [] and store.writes == 0


async def test_evidence_is_the_chunk_stating_the_relationship() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    filler = "Plain words about the weather that mention nothing at all. " * 3
    content = f"{filler}\n\n{filler}\n\nuser:ann|OWNS|service:billing\n"
    outcome = await ingest(
        request(content, relationships=("user:ann|KNOWS|user:bob",)), deps(store, embedder)
    )
    assert len(outcome.chunk_ids) == 3
    by_type = {e.edge_type: e.evidence_chunk_ids for e in store.edges}
    assert by_type["owns"] == (outcome.chunk_ids[2],)
    # Given outside the text, a relationship is supported by the whole document.
    assert by_type["knows"] == outcome.chunk_ids
    third = next(c for c in store.chunks if c.id == outcome.chunk_ids[2])
    assert set(third.graph_refs) == {"user:ann", "service:billing"}


async def test_aliases_are_resolved_before_storing() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    await ingest(request("user:jd|OWNS|service:x"), deps(store, embedder, {"user:jd": "user:john"}))
    assert [(e.from_key, e.to_key) for e in store.edges] == [("user:john", "service:x")]
    assert "user:jd" not in {n.key for n in store.nodes}


async def test_an_embedder_returning_too_few_vectors_stores_nothing() -> None:
    store, embedder = FakeStore(), FakeEmbedder(short=True)
    with pytest.raises(EmbeddingError) as caught:
        await ingest(request("user:ann|OWNS|service:x"), deps(store, embedder))
    assert not caught.value.transient
    assert store.writes == 0


async def test_same_urn_in_two_scopes_gets_distinct_chunk_ids() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    a = await ingest(request("Same text."), deps(store, embedder))
    store.sources.clear()
    other = IngestRequest(source_urn="doc:1", kind="note", content="Same text.", scope=Scope("b"))
    b = await ingest(other, deps(store, embedder))
    assert set(a.chunk_ids).isdisjoint(b.chunk_ids)
