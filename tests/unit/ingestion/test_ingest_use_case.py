"""The ingest use case over fakes of its ports: what is embedded, stored and skipped."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import EmbeddingError
from kenning.domain.ingestion.ingest import ingest
from kenning.domain.ingestion.request import (
    IngestRequest,
    IngestStatus,
)
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

SCOPE = Scope("acme")


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
