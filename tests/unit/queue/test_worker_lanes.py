"""A worker's lanes over fakes: bulk claims pause while priority work runs and shortly
after (the linger), and resume without priority work."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.queue import worker as worker_module
from kenning.domain.queue.jobs import Job, JobStage, JobStatus, Lane, Lease
from kenning.domain.queue.payload import to_payload
from kenning.domain.queue.ports import ClaimedJob
from kenning.domain.queue.tasks import JobDeps
from kenning.domain.queue.worker import Worker, WorkerConfig
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.fakes.work_queue import FakeWorkQueue
from tests.fakes.worker_ports import InstantWakeup, SilentRegistry
from tests.support.ingest_deps import deps

NOW = datetime(2026, 11, 21, tzinfo=UTC)
LINGER = 0.2
RUNS = {Lane.PRIORITY: 0.08, Lane.BULK: 0.02}


def claimed(job_id: str, lane: Lane) -> ClaimedJob:
    request = IngestRequest(source_urn=job_id, kind="note", content="x", scope=Scope("acme"))
    job = Job(
        id=job_id, status=JobStatus.RUNNING, stage=JobStage.CHUNKING, lane=lane, priority=1,
        scope=Scope("acme"), source_urn=job_id, connection_id=None, source_kind="k",
        source_id=job_id, content_version="v1", attempts=0, next_attempt_at=None,
        last_error=None, version=1, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return ClaimedJob(job, Lease(job_id, "w/1"), to_payload(request, None))


class LaneQueue(FakeWorkQueue):
    """Endless bulk work; priority jobs only when ``urgent`` holds some."""

    def __init__(self) -> None:
        super().__init__()
        self.urgent: list[ClaimedJob] = []
        self.bulk_claims = 0

    async def claim(self, lane: Lane, owner: str, lease_seconds: float) -> ClaimedJob | None:  # type: ignore[override]
        if lane is Lane.PRIORITY:
            return self.urgent.pop() if self.urgent else None
        self.bulk_claims += 1
        return claimed(f"bulk{self.bulk_claims}", Lane.BULK)


async def test_bulk_claims_pause_for_priority_work_and_the_linger_then_resume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs: list[tuple[Lane, float, float]] = []

    async def run_job(job: ClaimedJob, *_: object) -> JobStatus:
        started = time.monotonic()
        await asyncio.sleep(RUNS[job.job.lane])
        runs.append((job.job.lane, started, time.monotonic()))
        return JobStatus.INDEXED

    monkeypatch.setattr(worker_module, "run_job", run_job)
    queue = LaneQueue()
    config = WorkerConfig(priority_slots=1, bulk_slots=2, idle_wait=0.05, priority_linger=LINGER)
    jobs = JobDeps(ingest=deps(FakeStore(), FakeEmbedder()))
    worker = Worker(queue, jobs, InstantWakeup(), SilentRegistry(), config)
    await worker.start()
    try:
        await asyncio.sleep(0.15)
        before = queue.bulk_claims
        assert before >= 4  # no priority work: bulk slots keep claiming
        queue.urgent.append(claimed("urgent", Lane.PRIORITY))
        for _ in range(200):
            if any(lane is Lane.PRIORITY for lane, _, _ in runs):
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(LINGER + 0.15)
    finally:
        await worker.stop()
    (_, urgent_start, urgent_end), *_ = [run for run in runs if run[0] is Lane.PRIORITY]
    bulk_starts = [start for lane, start, _ in runs if lane is Lane.BULK]
    paused = [s for s in bulk_starts if urgent_start <= s < urgent_end + LINGER - 0.01]
    assert paused == []
    assert any(s >= urgent_end + LINGER - 0.01 for s in bulk_starts)  # and then resume
