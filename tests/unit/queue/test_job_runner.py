"""Running one job over fakes: stages in order, retries with backoff, failures kept."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.queue.jobs import Job, JobStage, JobStatus, Lane, Lease
from kenning.domain.queue.payload import to_payload
from kenning.domain.queue.ports import ClaimedJob
from kenning.domain.queue.runner import run_job
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.fakes.work_queue import FakeWorkQueue
from tests.support.ingest_deps import job_deps as deps

T = TypeVar("T")
NOW = datetime(2026, 11, 21, tzinfo=UTC)
SCOPE = Scope("acme")


def claimed(content: str, attempts: int = 0, priority: int = 4) -> ClaimedJob:
    request = IngestRequest(source_urn="doc:1", kind="note", content=content, scope=SCOPE)
    job = Job(
        id="j1", status=JobStatus.RUNNING, stage=JobStage.CHUNKING, lane=Lane.BULK,
        priority=priority, scope=SCOPE, source_urn="doc:1", connection_id=None,
        source_kind="k", source_id="doc:1", content_version="v1", attempts=attempts,
        next_attempt_at=None, last_error=None, version=1, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return ClaimedJob(job, Lease("j1", "w/1"), to_payload(request, None))


async def test_stages_in_order_and_the_end_happens_inside_the_write() -> None:
    queue, embedder = FakeWorkQueue(), FakeEmbedder()
    status = await run_job(claimed("hello user:ann"), queue, deps(FakeStore(), embedder))
    assert status is JobStatus.INDEXED
    assert queue.log == [
        ("stage", JobStage.EMBEDDING),
        ("stage", JobStage.STORING),
        ("finish-in-write", JobStatus.INDEXED),
    ]


async def test_embedding_calls_carry_the_jobs_priority() -> None:
    embedder = FakeEmbedder()
    await run_job(claimed("hello", priority=6), FakeWorkQueue(), deps(FakeStore(), embedder))
    priorities = [priority for _, priority in embedder.calls]
    assert priorities == [6]


async def test_unchanged_content_ends_skipped_without_a_write() -> None:
    store = FakeStore()
    await run_job(claimed("same"), FakeWorkQueue(), deps(store, FakeEmbedder()))
    queue = FakeWorkQueue()
    status = await run_job(claimed("same"), queue, deps(store, FakeEmbedder()))
    assert status is JobStatus.SKIPPED_DUPLICATE
    assert queue.log == [("finish", (JobStatus.SKIPPED_DUPLICATE, None))]


async def test_a_busy_backend_requeues_with_backoff_from_the_attempt_count() -> None:
    busy = EmbeddingError("ollama answered 503", kind=EmbeddingErrorKind.OPERATIONAL)
    queue = FakeWorkQueue()
    status = await run_job(
        claimed("x", attempts=2), queue, deps(FakeStore(), FakeEmbedder(error=busy))
    )
    assert status is JobStatus.QUEUED
    assert queue.log[-1] == ("retry", (20.0, "EMBEDDING_FAILED: ollama answered 503"))


async def test_a_permanent_error_fails_the_job_with_its_message() -> None:
    bad = EmbeddingError("returned vectors of dimension 8", kind=EmbeddingErrorKind.PERMANENT)
    queue = FakeWorkQueue()
    status = await run_job(claimed("x"), queue, deps(FakeStore(), FakeEmbedder(error=bad)))
    assert status is JobStatus.FAILED
    assert queue.log[-1] == (
        "finish",
        (JobStatus.FAILED, "EMBEDDING_FAILED: returned vectors of dimension 8"),
    )


async def test_secrets_fail_the_job_and_nothing_is_embedded() -> None:
    queue, embedder = FakeWorkQueue(), FakeEmbedder()
    status = await run_job(claimed("key AKIAIOSFODNN7EXAMPLF"), queue, deps(FakeStore(), embedder))
    assert status is JobStatus.FAILED
    assert embedder.batches == []
    assert "SENSITIVE_CONTENT" in str(queue.log[-1][1][1])


async def test_a_lost_lease_changes_nothing() -> None:
    store = FakeStore()
    status = await run_job(claimed("hello"), FakeWorkQueue(lost=True), deps(store, FakeEmbedder()))
    assert status is None
    assert store.chunks == []
