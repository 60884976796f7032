"""The storage extraction relies on: node defaults never overwrite a writer's properties,
edge provenance fills only what an edge lacks, the cache keys, and the held write that
commits a job's chunks only under its lease."""

from __future__ import annotations

import json

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.ports import CacheKey
from kenning.domain.ingestion.ports import WriteUnit
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.queue.jobs import Lease, LeaseLostError
from kenning.runtime import Runtime
from kenning.storage.extraction.cache import PgExtractionCache
from kenning.storage.extraction.held_store import held_store

pytestmark = pytest.mark.integration
SCOPE = Scope("acme")


async def properties(runtime: Runtime, table: str) -> list[dict[str, object]]:
    graph = runtime.settings.graph_name
    rows = await runtime.pool.fetch(
        f'SELECT ag_catalog.agtype_out(properties)::text AS p FROM {graph}."{table}"'
    )
    return [json.loads(r["p"]) for r in rows]


async def test_a_models_description_fills_but_never_overwrites(runtime: Runtime) -> None:
    async def writer(unit: WriteUnit) -> None:
        await unit.upsert_nodes(SCOPE, [NodeRecord("service:a", "service", {"description": "W"})])

    async def model(unit: WriteUnit) -> None:
        await unit.upsert_nodes(SCOPE, [
            NodeRecord("service:a", "service", defaults={"description": "M"}),
            NodeRecord("service:b", "service", defaults={"description": "M"}),
        ])  # fmt: skip

    await runtime.store.write(writer)
    await runtime.store.write(model)
    found = {p["key"]: p.get("description") for p in await properties(runtime, "Entity")}
    assert found == {"service:a": "W", "service:b": "M"}


async def test_edge_provenance_stays_the_first_writers_and_evidence_unites(
    runtime: Runtime,
) -> None:
    nodes = [NodeRecord("service:a", "service"), NodeRecord("service:b", "service")]

    def edge(chunk: str, **props: object) -> EdgeRecord:
        return EdgeRecord("service:a", "calls", "service:b", (chunk,), props)

    async def first(unit: WriteUnit) -> None:
        await unit.upsert_nodes(SCOPE, nodes)
        await unit.upsert_edges(SCOPE, [edge("c1", extractedBy="llm:m", confidence=0.5)])

    async def second(unit: WriteUnit) -> None:
        await unit.upsert_edges(SCOPE, [edge("c2", extractedBy="llm:x", confidence=0.9)])

    await runtime.store.write(first)
    await runtime.store.write(second)
    [stored] = await properties(runtime, "REL")
    assert stored["evidenceChunkIds"] == ["c1", "c2"]
    assert (stored["extractedBy"], stored["confidence"]) == ("llm:m", 0.5)


async def test_the_cache_answers_per_client_model_and_prompt_version(runtime: Runtime) -> None:
    cache = PgExtractionCache(runtime.pool)
    key = CacheKey("acme", "m1", "extract-v1")
    await cache.put(key, "h1", {"entities": []})
    await cache.put(key, "h1", {"entities": [], "relations": []})  # replaced, not doubled
    assert await cache.get_many(key, ["h1", "h2"]) == {"h1": {"entities": [], "relations": []}}
    for other in (CacheKey("zeta", "m1", "extract-v1"), CacheKey("acme", "m2", "extract-v1"),
                  CacheKey("acme", "m1", "extract-v2")):  # fmt: skip
        assert await cache.get_many(other, ["h1"]) == {}


async def test_a_held_write_rolls_back_when_the_job_is_not_held(runtime: Runtime) -> None:
    store = held_store(runtime.store, Lease("no-such-job", "w/1"), None)

    async def work(unit: WriteUnit) -> None:
        await unit.upsert_nodes(SCOPE, [NodeRecord("service:a", "service")])

    with pytest.raises(LeaseLostError):
        await store.write(work)
    assert await properties(runtime, "Entity") == []
