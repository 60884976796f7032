"""extract_source over fakes: the cache spares model calls, invalid chunks are skipped,
outages propagate, and the write keeps evidence to chunks still stored and adds mentions."""

from __future__ import annotations

import json

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.extract_source import ExtractionDeps, extract_source
from kenning.domain.ingestion.request import SourceRecord
from kenning.domain.models.ports import ModelCallError, ModelPriority
from tests.fakes.extraction import FakeExtractionCache, FakeSourceChunks, stored_chunk
from tests.fakes.knowledge_store import FakeAliases, FakeStore
from tests.fakes.model_client import Answer, FakeModelClient

SCOPE = Scope("acme")
URN = "doc:1"


def answer(a: str, b: str) -> str:
    return json.dumps({
        "entities": [{"type": "service", "name": a, "description": f"{a} svc"},
                     {"type": "service", "name": b, "description": ""}],
        "relations": [{"source": a, "type": "calls", "target": b, "confidence": 0.7}],
    })  # fmt: skip


def setup(
    texts: list[str], replies: list[Answer], cache: FakeExtractionCache | None = None,
    client_id: str = "acme", model: str = "m1",
) -> tuple[ExtractionDeps, FakeStore, FakeModelClient]:  # fmt: skip
    store = FakeStore()
    chunks = [stored_chunk(f"c{i}", text, i) for i, text in enumerate(texts)]
    store.sources[URN] = SourceRecord(
        Scope(client_id), URN, "note", "h", None, None, tuple(c.id for c in chunks), ("x:1",)
    )
    client = FakeModelClient(list(replies))
    deps = ExtractionDeps(
        client=client, chunks=FakeSourceChunks({URN: chunks}),
        cache=cache or FakeExtractionCache(), store=store, aliases=FakeAliases(), model=model,
    )  # fmt: skip
    return deps, store, client


async def test_every_chunk_is_asked_once_then_the_cache_answers() -> None:
    deps, store, client = setup(["a calls b", "c calls d"], [answer("a", "b"), answer("c", "d")])
    report = await extract_source(SCOPE, URN, deps)
    assert (report.model_calls, report.cached, report.skipped) == (2, 0, 0)
    assert all(r.priority is ModelPriority.BACKGROUND for r in client.requests)
    edges = {(e.from_key, e.to_key): e for e in store.edges}
    assert edges[("service:a", "service:b")].evidence_chunk_ids == ("c0",)
    assert edges[("service:c", "service:d")].properties["extractedBy"] == "llm:m1"
    mentions = set(store.sources[URN].mentions)
    assert {"x:1", "service:a", "service:b", "service:c", "service:d"} <= mentions

    again = await extract_source(SCOPE, URN, deps)
    assert (again.model_calls, again.cached) == (0, 2) and client.calls == 2


async def test_only_a_changed_chunk_goes_to_the_model() -> None:
    cache = FakeExtractionCache()
    deps, _, _ = setup(["a calls b", "c calls d"], [answer("a", "b"), answer("c", "d")], cache)
    await extract_source(SCOPE, URN, deps)
    deps, _, client = setup(["a calls b", "c calls e"], [answer("c", "e")], cache)
    report = await extract_source(SCOPE, URN, deps)
    assert (report.model_calls, report.cached) == (1, 1)
    assert "c calls e" in client.requests[0].messages[1].content


@pytest.mark.parametrize(("client_id", "model"), [("other", "m1"), ("acme", "m2")])
async def test_the_cache_is_keyed_by_client_and_model(client_id: str, model: str) -> None:
    cache = FakeExtractionCache()
    deps, _, _ = setup(["a calls b"], [answer("a", "b")], cache)
    await extract_source(SCOPE, URN, deps)
    deps, _, client = setup(["a calls b"], [answer("a", "b")], cache, client_id, model)
    await extract_source(Scope(client_id), URN, deps)
    assert client.calls == 1


async def test_a_chunk_whose_answer_stays_invalid_is_skipped_and_counted() -> None:
    bad = '{"entities": 1}'
    deps, store, _ = setup(["a calls b", "junk"], [answer("a", "b"), bad, bad, bad, bad])
    report = await extract_source(SCOPE, URN, deps)
    assert report.skipped == 1 and len(store.edges) == 1
    assert isinstance(deps.cache, FakeExtractionCache) and deps.cache.puts == 1


async def test_a_model_outage_propagates_and_keeps_the_answers_already_cached() -> None:
    busy = ModelCallError("busy (503)", transient=True)
    deps, store, _ = setup(["a calls b", "c calls d"], [answer("a", "b"), busy])
    with pytest.raises(ModelCallError):
        await extract_source(SCOPE, URN, deps)
    assert store.edges == [] and isinstance(deps.cache, FakeExtractionCache)
    assert deps.cache.puts == 1


async def test_evidence_keeps_only_chunks_still_stored_and_a_gone_source_writes_nothing() -> None:
    deps, store, _ = setup(["a calls b", "c calls d"], [answer("a", "b"), answer("c", "d")])
    store.sources[URN] = SourceRecord(SCOPE, URN, "note", "h2", None, None, ("c1",), ())
    report = await extract_source(SCOPE, URN, deps)
    assert [e.evidence_chunk_ids for e in store.edges] == [("c1",)]
    assert report.graph is not None and len(report.graph.edges) == 1

    deps, store, _ = setup(["a calls b"], [answer("a", "b")])
    del store.sources[URN]
    assert (await extract_source(SCOPE, URN, deps)).graph is None
    assert store.edges == [] and store.nodes == []
