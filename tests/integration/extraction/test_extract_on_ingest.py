"""Graph extraction on ingest, end to end on the real stack with the fake Ollama behind the
real model adapter: the EXTRACTING stage, evidence and provenance in AGE, the cache, 503
storms, P3 calls, and the synchronous ingest's extraction job."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.router.demo import FakeOllama
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.models import OllamaModelClient
from tests.fakes.ollama import FakeFactory, Reply
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.queue_api import REQUEST, agent, identity, job_status

pytestmark = pytest.mark.integration

BILLING = "Billing uses Postgres for invoices. " * 20
AUTH = "Auth calls Billing before every login. " * 18
INGEST = """
mutation Ingest($input: IngestInput!) {
  ingest(input: $input) {
    __typename
    ... on IngestSuccess { status extractionJobId chunks { id } }
  }
}"""


NODE_EDGES = """
query Edges($key: String!) {
  node(key: $key) { edges { edgeType extractedBy extractionConfidence evidence { id } } }
}"""


def answer(body: dict[str, Any]) -> str:
    text = body["messages"][-1]["content"]
    if "Auth calls" in text:
        ends = [("service", "Auth", "Signs users in."), ("service", "Billing", "")]
        verb = "calls"
    else:
        ends = [("service", "Billing", "Bills customers."), ("database", "Postgres", "")]
        verb = "uses"
    return json.dumps({
        "entities": [{"type": t, "name": n, "description": d} for t, n, d in ends],
        "relations": [{"source": ends[0][1], "type": verb, "target": ends[1][1],
                       "confidence": 0.8}],
    })  # fmt: skip


@pytest.fixture
async def fake(fake_ollama_factory: FakeFactory) -> FakeOllama:
    started = fake_ollama_factory("extract")
    started.replier = answer
    return started


@pytest.fixture
async def xruntime(
    pool: asyncpg.Pool, migrated_settings: Settings, fake: FakeOllama, clean: None
) -> AsyncIterator[Runtime]:
    models = OllamaModelClient(fake.url, timeout=10)
    runtime = Runtime(
        settings=migrated_settings, pool=pool, redis=aioredis.from_url(migrated_settings.redis_url),
        embedder=CountingEmbedder(migrated_settings.embedding_dim), models=models,
    )  # fmt: skip
    yield runtime
    await models.aclose()
    await runtime.queue.aclose()
    await runtime.redis.aclose()


def doc(content: str, **extra: Any) -> dict[str, Any]:
    return {"sourceUrn": "doc:arch", "kind": "note", "content": content, **extra}


async def run_next(runtime: Runtime) -> JobStatus | None:
    claimed = await runtime.queue.work.claim(Lane.BULK, "test/1", 30.0)
    assert claimed is not None, "no job to run"
    return await run_job(claimed, runtime.queue.work, runtime.job_deps())


def chats(fake: FakeOllama) -> list[Any]:
    return [r for r in fake.records if r.endpoint == "/api/chat"]


async def edges(runtime: Runtime) -> dict[tuple[str, str, str], dict[str, Any]]:
    graph = runtime.settings.graph_name
    rows = await runtime.pool.fetch(
        f"""SELECT ag_catalog.agtype_out(s.properties)::text::jsonb ->> 'key' AS f,
                   ag_catalog.agtype_out(e.properties)::text::jsonb ->> 'key' AS t,
                   ag_catalog.agtype_out(r.properties)::text AS p
            FROM {graph}."REL" r JOIN {graph}."Entity" s ON s.id = r.start_id
            JOIN {graph}."Entity" e ON e.id = r.end_id"""
    )
    found = {}
    for row in rows:
        props = json.loads(row["p"])
        found[(row["f"], props["edgeType"], row["t"])] = props
    return found


async def descriptions(runtime: Runtime) -> dict[str, str | None]:
    graph = runtime.settings.graph_name
    rows = await runtime.pool.fetch(
        f'SELECT ag_catalog.agtype_out(properties)::text AS p FROM {graph}."Entity"'
    )
    return {json.loads(r["p"])["key"]: json.loads(r["p"]).get("description") for r in rows}


async def queued_llm(api: Api, content: str, version: str = "v1") -> str:
    data = await api(
        REQUEST, input=doc(content, extraction="LLM"), identity=identity("doc:arch", version)
    )
    handle = data["requestIngestion"]
    assert handle["__typename"] == "IngestionHandle", handle
    job_id: str = handle["jobId"]
    return job_id


async def test_a_queued_llm_ingest_extracts_after_storing_with_evidence_and_provenance(
    xruntime: Runtime, fake: FakeOllama
) -> None:
    api = Api(xruntime, agent("acme"))
    job_id = await queued_llm(api, f"{BILLING}\n\n{AUTH}")
    fake.script([Reply(answer({"messages": [{"content": BILLING}]}), delay=0.5)])
    running = asyncio.create_task(run_next(xruntime))
    stages = set()
    while not running.done():
        job = await job_status(api, job_id)
        stages.add(job and job["stage"])
        await asyncio.sleep(0.02)
    assert await running is JobStatus.INDEXED
    assert "EXTRACTING" in stages
    job = await job_status(api, job_id)
    assert job is not None and job["status"] == "INDEXED" and job["stage"] is None

    chunk_ids = [r["id"] for r in await xruntime.pool.fetch(
        "SELECT id FROM chunks WHERE source_urn = 'doc:arch' ORDER BY ordinal")]  # fmt: skip
    assert len(chunk_ids) == 2
    found = await edges(xruntime)
    uses = found[("service:billing", "uses", "database:postgres")]
    calls = found[("service:auth", "calls", "service:billing")]
    assert uses["evidenceChunkIds"] == [chunk_ids[0]] and calls["evidenceChunkIds"] == [
        chunk_ids[1]
    ]
    assert uses["extractedBy"] == f"llm:{xruntime.settings.model_extract}"
    assert uses["confidence"] == 0.8 and uses["client"] == "acme"
    described = await descriptions(xruntime)
    assert described["service:billing"] == "Bills customers."
    assert described["service:auth"] == "Signs users in."
    # Every extraction call went at the background priority.
    assert [r.priority for r in chats(fake)] == ["3", "3"]
    # Readers see where an edge came from: the model and its confidence.
    read = await api(NODE_EDGES, key="service:billing")
    shown = {e["edgeType"]: e for e in read["node"]["edges"]}
    assert shown["uses"]["extractedBy"] == f"llm:{xruntime.settings.model_extract}"
    assert shown["uses"]["extractionConfidence"] == 0.8
    assert shown["uses"]["evidence"] == [{"id": chunk_ids[0]}]


async def test_unchanged_content_costs_no_call_and_one_changed_chunk_costs_one(
    xruntime: Runtime, fake: FakeOllama
) -> None:
    api = Api(xruntime, agent("acme"))
    await queued_llm(api, f"{BILLING}\n\n{AUTH}")
    assert await run_next(xruntime) is JobStatus.INDEXED
    assert len(chats(fake)) == 2

    # The same content again: the ingest skips and its extraction job asks the cache only.
    data = await api(INGEST, input=doc(f"{BILLING}\n\n{AUTH}", extraction="LLM"))
    assert data["ingest"]["status"] == "SKIPPED_DUPLICATE"
    assert await run_next(xruntime) is JobStatus.INDEXED
    assert len(chats(fake)) == 2
    # Asked again, the same extraction is the job already done.
    again = await api(INGEST, input=doc(f"{BILLING}\n\n{AUTH}", extraction="LLM"))
    assert again["ingest"]["extractionJobId"] == data["ingest"]["extractionJobId"]
    assert await xruntime.queue.work.claim(Lane.BULK, "test/2", 30.0) is None

    changed = AUTH.replace("login", "logout")
    await queued_llm(api, f"{BILLING}\n\n{changed}", version="v2")
    assert await run_next(xruntime) is JobStatus.INDEXED
    assert len(chats(fake)) == 3
    new_ids = [r["id"] for r in await xruntime.pool.fetch(
        "SELECT id FROM chunks WHERE source_urn = 'doc:arch' ORDER BY ordinal")]  # fmt: skip
    found = await edges(xruntime)
    # The replaced chunk's evidence went with it; the re-extracted edge cites the new one.
    assert found[("service:auth", "calls", "service:billing")]["evidenceChunkIds"] == [new_ids[1]]
    assert found[("service:billing", "uses", "database:postgres")]["evidenceChunkIds"] == [
        new_ids[0]
    ]


async def test_a_503_storm_requeues_the_job_and_it_completes_later(
    xruntime: Runtime, fake: FakeOllama
) -> None:
    api = Api(xruntime, agent("acme"))
    job_id = await queued_llm(api, BILLING)
    fake.busy_for(1000)
    assert await run_next(xruntime) is JobStatus.QUEUED
    job = await job_status(api, job_id)
    assert job is not None and job["status"] == "QUEUED" and job["attempts"] == 1
    assert "MODEL_UNAVAILABLE" in job["lastError"] and job["nextAttemptAt"]
    assert job["stage"] == "WAITING_FOR_MODEL" and job["waitingForModelSince"]
    assert await xruntime.pool.fetchval("SELECT count(*) FROM chunks") == 1  # kept

    fake.busy_for(0)
    await xruntime.pool.execute("UPDATE ingestion_jobs SET next_attempt_at = now()")
    assert await run_next(xruntime) is JobStatus.INDEXED
    job = await job_status(api, job_id)
    assert job is not None and job["status"] == "INDEXED"
    assert ("service:billing", "uses", "database:postgres") in await edges(xruntime)


async def test_a_sync_ingest_returns_its_extraction_job_which_completes(
    xruntime: Runtime, fake: FakeOllama
) -> None:
    api = Api(xruntime, agent("acme"))
    data = await api(INGEST, input=doc(BILLING, extraction="LLM"))
    result = data["ingest"]
    assert result["status"] == "INDEXED" and result["extractionJobId"]
    assert chats(fake) == []  # the answer did not wait for the model
    job = await job_status(api, result["extractionJobId"])
    assert job is not None and job["status"] == "QUEUED" and job["lane"] == "BULK"

    assert await run_next(xruntime) is JobStatus.INDEXED
    job = await job_status(api, result["extractionJobId"])
    assert job is not None and job["status"] == "INDEXED"
    assert ("service:billing", "uses", "database:postgres") in await edges(xruntime)
    assert [r.priority for r in chats(fake)] == ["3"]

    plain = await api(INGEST, input=doc("Plain text, nothing to extract.", sourceUrn="doc:2"))
    assert plain["ingest"]["extractionJobId"] is None


PURGE = """
mutation Purge($urn: String!) {
  purgeSource(sourceUrn: $urn) {
    __typename ... on PurgeSuccess { edgesDeleted verticesDeleted }
  }
}"""


async def test_purging_the_source_removes_what_was_extracted_from_it(
    xruntime: Runtime, fake: FakeOllama
) -> None:
    api = Api(xruntime, agent("acme"))
    await queued_llm(api, f"{BILLING}\n\n{AUTH}")
    assert await run_next(xruntime) is JobStatus.INDEXED
    assert len(await edges(xruntime)) == 2

    data = await api(PURGE, urn="doc:arch")
    purged = data["purgeSource"]
    assert purged["__typename"] == "PurgeSuccess", purged
    # The extracted keys were the source's mentions: its edges and the nodes only it
    # named go with it, as written references do.
    assert purged["edgesDeleted"] == 2 and purged["verticesDeleted"] == 3
    assert await edges(xruntime) == {}
    assert await descriptions(xruntime) == {}


async def test_a_job_whose_model_never_answers_ends_failed_after_the_wait(
    xruntime: Runtime, fake: FakeOllama
) -> None:
    api = Api(xruntime, agent("acme"))
    job_id = await queued_llm(api, BILLING)
    fake.busy_for(1000)
    assert await run_next(xruntime) is JobStatus.QUEUED
    # As if KENNING_MODEL_WAIT_HOURS (24) had passed since the model first failed it.
    await xruntime.pool.execute(
        "UPDATE ingestion_jobs SET next_attempt_at = now(), "
        "waiting_for_model_since = now() - interval '25 hours'"
    )
    assert await run_next(xruntime) is JobStatus.FAILED
    job = await job_status(api, job_id)
    assert job is not None and job["status"] == "FAILED" and job["stage"] is None
    assert job["lastError"].startswith(
        "MODEL_UNAVAILABLE: gave up after waiting 24 h for the model: "
    ), job["lastError"]
