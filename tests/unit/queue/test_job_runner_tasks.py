"""The runner's task registry over fakes: LLM extraction after STORING ending the job,
model outages backing off, extraction-only jobs, preparers and unknown tasks."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.extract_source import ExtractionDeps
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.extraction.ports import StoredChunk
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.models.ports import ModelCallError, ModelPriority
from kenning.domain.queue.backoff import gave_up_waiting, waits_for_model
from kenning.domain.queue.jobs import Job, JobStage, JobStatus, Lane, Lease
from kenning.domain.queue.payload import extract_payload, task_payload, to_payload
from kenning.domain.queue.ports import ClaimedJob
from kenning.domain.queue.runner import run_job
from kenning.domain.queue.tasks import JobDeps
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.extraction import FakeExtractionCache, stored_chunk
from tests.fakes.knowledge_store import FakeAliases, FakeStore
from tests.fakes.model_client import Answer, FakeModelClient
from tests.fakes.work_queue import FakeWorkQueue
from tests.support.ingest_deps import deps

NOW = datetime(2026, 11, 21, tzinfo=UTC)
SCOPE = Scope("acme")
ANSWER = json.dumps({
    "entities": [{"type": "service", "name": "billing", "description": "Bills."},
                 {"type": "db", "name": "pg", "description": ""}],
    "relations": [{"source": "billing", "type": "uses", "target": "pg", "confidence": 0.9}],
})  # fmt: skip


class StoreChunks:
    """The chunks the fake store holds, as extraction reads them."""

    def __init__(self, store: FakeStore) -> None:
        self.store = store

    async def chunks_of(self, scope: Scope, source_urn: str) -> list[StoredChunk]:
        current = self.store.sources.get(source_urn)
        alive = set(current.chunk_ids) if current else set()
        return [
            stored_chunk(c.id, c.content, c.ordinal) for c in self.store.chunks if c.id in alive
        ]


def claimed(payload: Mapping[str, Any], attempts: int = 0) -> ClaimedJob:
    job = Job(
        id="j1", status=JobStatus.RUNNING, stage=JobStage.CHUNKING, lane=Lane.BULK,
        priority=4, scope=SCOPE, source_urn="doc:1", connection_id=None,
        source_kind="k", source_id="doc:1", content_version="v1", attempts=attempts,
        next_attempt_at=None, last_error=None, version=1, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return ClaimedJob(job, Lease("j1", "w/1"), payload)


def llm_payload(content: str = "billing uses pg") -> dict[str, Any]:
    request = IngestRequest(source_urn="doc:1", kind="note", content=content, scope=SCOPE)
    return to_payload(request, None, ExtractionMode.LLM)


def job_deps(
    store: FakeStore, replies: list[Answer], **more: Any
) -> tuple[JobDeps, FakeModelClient]:
    client = FakeModelClient(replies)
    extraction = ExtractionDeps(
        client=client, chunks=StoreChunks(store), cache=FakeExtractionCache(), store=store,
        aliases=FakeAliases(), model="m1",
    )  # fmt: skip
    return JobDeps(ingest=deps(store, FakeEmbedder()), extraction=extraction, **more), client


async def test_an_llm_job_extracts_after_storing_and_ends_in_the_extractions_write() -> None:
    store, queue = FakeStore(), FakeWorkQueue()
    job, client = job_deps(store, [ANSWER])
    status = await run_job(claimed(llm_payload()), queue, job)
    assert status is JobStatus.INDEXED
    assert queue.log == [
        ("stage", JobStage.EMBEDDING),
        ("stage", JobStage.STORING),
        ("stage", JobStage.EXTRACTING),
        ("finish-in-write", JobStatus.INDEXED),
    ]
    assert [r.priority for r in client.requests] == [ModelPriority.BACKGROUND]
    [edge] = store.edges
    assert edge.evidence_chunk_ids == (store.chunks[0].id,)
    assert edge.properties == {"extractedBy": "llm:m1", "confidence": 0.9}


async def test_a_model_outage_backs_off_and_the_retry_skips_the_stored_chunks() -> None:
    store, queue = FakeStore(), FakeWorkQueue()
    job, client = job_deps(store, [ModelCallError("busy (503)", transient=True), ANSWER])
    assert await run_job(claimed(llm_payload()), queue, job) is JobStatus.QUEUED
    assert queue.log[-1][0] == "retry_for_model" and "busy" in queue.log[-1][1][1]
    assert len(store.chunks) == 1 and store.edges == []

    queue = FakeWorkQueue()
    assert await run_job(claimed(llm_payload(), attempts=1), queue, job) is JobStatus.INDEXED
    assert ("stage", JobStage.EMBEDDING) not in queue.log  # the chunks were kept
    assert len(store.chunks) == 1 and len(store.edges) == 1 and client.calls == 2


async def test_an_llm_job_without_a_model_client_fails_before_writing() -> None:
    store, queue = FakeStore(), FakeWorkQueue()
    status = await run_job(
        claimed(llm_payload()), queue, JobDeps(ingest=deps(store, FakeEmbedder()))
    )
    assert status is JobStatus.FAILED and store.chunks == []
    assert "model client" in queue.log[-1][1][1]


async def test_an_extract_job_extracts_a_stored_source_with_its_model() -> None:
    store = FakeStore()
    job, client = job_deps(store, [ANSWER])
    plain = IngestRequest(source_urn="doc:1", kind="note", content="billing uses pg", scope=SCOPE)
    await run_job(claimed(to_payload(plain, None)), FakeWorkQueue(), job)
    assert client.calls == 0 and store.edges == []
    queue = FakeWorkQueue()
    status = await run_job(claimed(extract_payload("doc:1", "m9")), queue, job)
    assert status is JobStatus.INDEXED
    assert queue.log == [("stage", JobStage.EXTRACTING), ("finish-in-write", JobStatus.INDEXED)]
    assert client.requests[0].model == "m9" and len(store.edges) == 1


async def test_an_extract_job_of_a_purged_source_ends_skipped() -> None:
    job, _ = job_deps(FakeStore(), [ANSWER])
    queue = FakeWorkQueue()
    status = await run_job(claimed(extract_payload("doc:gone", "m1")), queue, job)
    assert status is JobStatus.SKIPPED_DUPLICATE
    assert queue.log[-1] == ("finish-in-write", JobStatus.SKIPPED_DUPLICATE)


async def test_a_registered_preparer_turns_its_payload_into_the_ingest_it_runs() -> None:
    seen: list[tuple[Mapping[str, Any], Scope, int]] = []

    async def prepare(
        payload: Mapping[str, Any], scope: Scope, priority: int
    ) -> IngestRequest | None:
        seen.append((payload, scope, priority))
        if payload["keep"]:
            return IngestRequest(
                source_urn="out:1", kind="task_outcome", content="done", scope=scope
            )
        return None

    store = FakeStore()
    job = JobDeps(ingest=deps(store, FakeEmbedder()), preparers={"task_outcome": prepare})
    kept = await run_job(
        claimed(task_payload("task_outcome", {"keep": True})), FakeWorkQueue(), job
    )
    assert kept is JobStatus.INDEXED and "out:1" in store.sources
    queue = FakeWorkQueue()
    dropped = await run_job(claimed(task_payload("task_outcome", {"keep": False})), queue, job)
    assert dropped is JobStatus.SKIPPED_DUPLICATE
    assert queue.log == [("finish", (JobStatus.SKIPPED_DUPLICATE, None))]
    assert [(p["task"], s, n) for p, s, n in seen] == [("task_outcome", SCOPE, 4)] * 2


async def test_a_task_no_worker_knows_fails_with_its_name() -> None:
    queue = FakeWorkQueue()
    job = JobDeps(ingest=deps(FakeStore(), FakeEmbedder()))
    status = await run_job(claimed(task_payload("mystery", {})), queue, job)
    assert status is JobStatus.FAILED and "mystery" in queue.log[-1][1][1]


def test_payloads_written_before_tasks_are_ingests_without_extraction() -> None:
    from kenning.domain.queue.payload import extraction_of, task_of

    old = to_payload(IngestRequest(source_urn="d", kind="k", content="c", scope=SCOPE), None)
    assert "task" not in old and "extraction" not in old
    assert (task_of(old), extraction_of(old)) == ("ingest", ExtractionMode.NONE)
    assert extraction_of(llm_payload()) is ExtractionMode.LLM


async def test_an_extraction_whose_lease_is_lost_stops_before_the_next_model_call() -> None:
    store, queue = FakeStore(), FakeWorkQueue()
    job, client = job_deps(store, [], lease_seconds=0.0)  # check before every call

    def answer_then_lose(_: object) -> str:
        queue.lost = True  # cancelled (or expired) while the model answered
        return ANSWER

    client.replier = answer_then_lose
    two_chunks = "billing uses pg. " * 10 + "\n\n" + "auth calls billing. " * 10
    assert await run_job(claimed(llm_payload(two_chunks)), queue, job) is None
    assert len(store.chunks) == 2
    assert client.calls == 1  # the second chunk never reached the model
    assert store.edges == []


# Queued work whose model does not answer waits visibly, and not for ever: it is queued
# again marked as waiting for its model, and once it has waited ``model_wait_seconds`` since
# its model first failed it, it ends FAILED saying so.
HOUR = 3600.0
DOWN = ModelCallError("ollama at http://gpu:11434 unreachable: ConnectError", transient=True)


def waiting(since: datetime | None, attempts: int = 3) -> ClaimedJob:
    job = claimed(llm_payload(), attempts=attempts)
    return dataclasses.replace(job, job=dataclasses.replace(job.job, waiting_for_model_since=since))


def test_a_job_gives_up_once_it_has_waited_the_whole_wait() -> None:
    start = datetime(2026, 12, 7, 9, tzinfo=UTC)
    job = waiting(start).job
    assert gave_up_waiting(job, DOWN, HOUR, start + timedelta(seconds=3599)) is None
    reason = gave_up_waiting(job, DOWN, HOUR, start + timedelta(hours=1))
    assert reason == (
        "MODEL_UNAVAILABLE: gave up after waiting 1 h for the model: "
        "ollama at http://gpu:11434 unreachable: ConnectError"
    )


def test_only_a_model_that_did_not_answer_counts_as_waiting() -> None:
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)
    now = datetime(2026, 12, 7, tzinfo=UTC)
    assert gave_up_waiting(waiting(None).job, DOWN, HOUR, now) is None  # first failure
    other = ConnectionError("the database did not answer")
    assert not waits_for_model(other)
    assert gave_up_waiting(waiting(long_ago).job, other, HOUR, now) is None
    refused = ModelCallError("model answered 400: bad request", transient=False)
    assert not waits_for_model(refused) and waits_for_model(DOWN)


async def test_the_runner_queues_it_waiting_for_its_model_then_fails_it() -> None:
    store = FakeStore()
    deps, _ = job_deps(store, [DOWN, DOWN], model_wait_seconds=HOUR)
    queue = FakeWorkQueue()
    assert await run_job(waiting(None, attempts=0), queue, deps) is JobStatus.QUEUED
    assert queue.log[-1][0] == "retry_for_model" and "unreachable" in queue.log[-1][1][1]

    queue = FakeWorkQueue()
    since = datetime.now(UTC) - timedelta(hours=2)
    assert await run_job(waiting(since), queue, deps) is JobStatus.FAILED
    assert "gave up after waiting 1 h for the model" in str(queue.log[-1])
