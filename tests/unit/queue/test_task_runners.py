"""Registered task runners over fakes: many sources from one job, the READING stage, the
runner's answer ending the job, a lost lease stopping it, a domain error failing it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.ingest import ingest
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.queue.jobs import Job, JobStage, JobStatus, Lane, Lease
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import ClaimedJob
from kenning.domain.queue.runner import run_job
from kenning.domain.queue.tasks import JobDeps, TaskRun
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.fakes.work_queue import FakeWorkQueue
from tests.support.ingest_deps import deps

NOW = datetime(2026, 11, 25, tzinfo=UTC)
SCOPE = Scope("acme")


def claimed(payload: Mapping[str, Any]) -> ClaimedJob:
    job = Job(
        id="j1", status=JobStatus.RUNNING, stage=None, lane=Lane.BULK, priority=6,
        scope=SCOPE, source_urn=None, connection_id=None, source_kind="web", source_id=None,
        content_version=None, attempts=0, next_attempt_at=None, last_error=None, version=1,
        created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return ClaimedJob(job, Lease("j1", "w/1"), payload)


async def pages(run: TaskRun) -> JobStatus:
    """A runner ingesting one source per page the payload names, checking in between."""
    for page in run.payload["pages"]:
        await run.checkpoint()
        request = IngestRequest(
            source_urn=f"web:{page}", kind="web_page", content=f"page {page}",
            scope=run.job.scope, priority=run.job.priority,
        )  # fmt: skip
        await ingest(request, run.ingest)
    return JobStatus.INDEXED


async def test_a_runner_writes_many_sources_and_its_answer_ends_the_job() -> None:
    store, queue = FakeStore(), FakeWorkQueue()
    job = JobDeps(ingest=deps(store, FakeEmbedder()), runners={"crawl": pages}, lease_seconds=0)
    status = await run_job(claimed(task_payload("crawl", {"pages": ["a", "b"]})), queue, job)
    assert status is JobStatus.INDEXED
    assert {"web:a", "web:b"} <= set(store.sources)
    stages = [entry for kind, entry in queue.log if kind == "stage"]
    assert stages[:2] == [JobStage.READING, JobStage.EMBEDDING]
    assert queue.log[-1] == ("finish", (JobStatus.INDEXED, None))


async def test_a_lost_lease_stops_the_runner_before_its_next_source() -> None:
    store, queue = FakeStore(), FakeWorkQueue()

    async def lose_after_first(run: TaskRun) -> JobStatus:
        await pages(TaskRun(run.job, {"pages": ["a"]}, run.ingest, run.stage, run.checkpoint))
        queue.lost = True
        return await pages(run)

    runners = {"crawl": lose_after_first}
    job = JobDeps(ingest=deps(store, FakeEmbedder()), runners=runners, lease_seconds=0)
    assert await run_job(claimed(task_payload("crawl", {"pages": ["b"]})), queue, job) is None
    assert "web:a" in store.sources and "web:b" not in store.sources


async def test_a_runner_refusing_its_payload_fails_the_job_with_the_reason() -> None:
    async def refuse(run: TaskRun) -> JobStatus:
        raise ValidationError("url must be http or https", field="url")

    queue = FakeWorkQueue()
    job = JobDeps(ingest=deps(FakeStore(), FakeEmbedder()), runners={"crawl": refuse})
    status = await run_job(claimed(task_payload("crawl", {})), queue, job)
    assert status is JobStatus.FAILED
    assert "url must be http or https" in queue.log[-1][1][1]
