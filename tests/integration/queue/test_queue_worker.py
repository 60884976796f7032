"""Workers on the real stack: lifecycle and stages, cancel/retry, leases, lanes, errors."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.queue.jobs import Lane, LeaseLostError
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.fakes.embedder import FakeEmbedder
from tests.support.graphql_api import Api
from tests.support.queue_api import (
    JOB_FIELDS,
    close_runtime,
    job_status,
    open_runtime,
    request,
    subscribe,
    wait_for,
)

pytestmark = pytest.mark.integration

PROGRESS = f"subscription P($id: ID!) {{ ingestionProgress(jobId: $id) {{ {JOB_FIELDS} }} }}"
CONTROL = """mutation M($id: ID!) {{ {name}(jobId: $id) {{ __typename
  ... on IngestionJob {{ status attempts nextAttemptAt position priority }}
  ... on JobStateError {{ status message }} }} }}"""


async def until_status(api: Api, job_id: str, *statuses: str, within: float = 20) -> Any:
    async def reached() -> bool:
        job = await job_status(api, job_id)
        return job is not None and job["status"] in statuses

    await wait_for(reached, within)
    return await job_status(api, job_id)


async def test_a_job_runs_through_every_stage_once_and_progress_completes(
    qruntime: Runtime, qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    handle = await request(qapi, "urn:life")
    seen: list[tuple[str, str | None]] = []

    async def watch() -> None:
        async for data in subscribe(qapi, PROGRESS, id=handle["jobId"]):
            job = data["ingestionProgress"]
            seen.append((job["status"], job["stage"]))

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.3)  # subscribed and holding the QUEUED snapshot
    await qruntime.queue.start_workers(qruntime.job_deps(), 1)
    await asyncio.wait_for(watcher, 20)  # completes after the terminal status
    assert seen == [
        ("QUEUED", None),
        ("RUNNING", "CHUNKING"),
        ("RUNNING", "EMBEDDING"),
        ("RUNNING", "STORING"),
        ("INDEXED", None),
    ]
    chunks = await queue_pool.fetchval("SELECT count(*) FROM chunks WHERE source_urn = 'urn:life'")
    assert chunks >= 1
    again = await request(qapi, "urn:life")
    assert (again["status"], again["jobId"]) == ("SKIPPED", handle["jobId"])


async def test_cancel_and_retry(qruntime: Runtime, qapi: Api) -> None:
    handle = await request(qapi, "urn:cancel-me")
    cancel = await qapi(CONTROL.format(name="cancelJob"), id=handle["jobId"])
    assert cancel["cancelJob"]["status"] == "CANCELLED"
    again = await qapi(CONTROL.format(name="cancelJob"), id=handle["jobId"])
    assert again["cancelJob"] == {
        "__typename": "JobStateError",
        "status": "CANCELLED",
        "message": f"job {handle['jobId']} is CANCELLED",
    }
    retried = await qapi(CONTROL.format(name="retryJob"), id=handle["jobId"])
    assert retried["retryJob"]["status"] == "QUEUED"
    await qruntime.queue.start_workers(qruntime.job_deps(), 1)
    done = await until_status(qapi, handle["jobId"], "INDEXED")
    assert done["finishedAt"] is not None


async def test_an_expired_lease_goes_back_to_the_queue_and_the_old_owner_is_locked_out(
    qruntime: Runtime, qapi: Api
) -> None:
    handle = await request(qapi, "urn:orphan")
    work = qruntime.queue.work
    claimed = await work.claim(Lane.BULK, "dead-worker/1", lease_seconds=1.0)
    assert claimed is not None and claimed.job.id == handle["jobId"]
    assert await work.recover_expired() == 0  # still leased
    await asyncio.sleep(1.2)
    assert await work.recover_expired() == 1
    job = await job_status(qapi, handle["jobId"])
    assert job is not None
    assert (job["status"], job["attempts"]) == ("QUEUED", 1)
    assert "lease" in job["lastError"]
    with pytest.raises(LeaseLostError):
        await work.finish(claimed.lease, claimed.job.status)
    await qruntime.queue.start_workers(qruntime.job_deps(), 1)
    await until_status(qapi, handle["jobId"], "INDEXED")


async def test_a_full_bulk_lane_does_not_delay_the_priority_lane(
    queue_settings: Settings, queue_pool: asyncpg.Pool, queue_clean: None
) -> None:
    runtime = await open_runtime(
        queue_settings, queue_pool, FakeEmbedder(dimension=384, delay=1.5, slow_from_priority=3)
    )
    api = Api(runtime)
    try:
        for n in range(6):
            await request(api, f"urn:bulk{n}")
        await runtime.queue.start_workers(runtime.job_deps(), 1)
        await asyncio.sleep(0.3)  # both bulk slots are now stuck in embedding
        started = time.monotonic()
        urgent = await request(api, "urn:urgent", priority=1)
        await until_status(api, urgent["jobId"], "INDEXED", within=10)
        assert time.monotonic() - started < 1.2
        bulk_done = await queue_pool.fetchval(
            "SELECT count(*) FROM ingestion_jobs WHERE lane = 'BULK' AND status = 'INDEXED'"
        )
        assert bulk_done == 0
    finally:
        await close_runtime(runtime)


def broken_embedder(kind: EmbeddingErrorKind) -> FakeEmbedder:
    """An embedder whose backend refuses every call with an error of ``kind``."""
    error = EmbeddingError(f"backend says no ({kind.value})", kind=kind)
    return FakeEmbedder(dimension=384, error=error)


@pytest.mark.parametrize("kind", list(EmbeddingErrorKind))
async def test_operational_errors_wait_and_permanent_ones_fail(
    queue_settings: Settings, queue_pool: asyncpg.Pool, queue_clean: None, kind: Any
) -> None:
    runtime = await open_runtime(queue_settings, queue_pool, broken_embedder(kind))
    api = Api(runtime)
    try:
        handle = await request(api, "urn:broken")
        await runtime.queue.start_workers(runtime.job_deps(), 1)
        if kind is EmbeddingErrorKind.PERMANENT:
            job = await until_status(api, handle["jobId"], "FAILED")
            assert job["lastError"] == "EMBEDDING_FAILED: backend says no (permanent)"
            return
        await wait_for(lambda: _attempted(api, handle["jobId"]))
        job = await job_status(api, handle["jobId"])
        assert job is not None and job["status"] == "QUEUED"
        due = datetime.fromisoformat(job["nextAttemptAt"])
        assert timedelta(seconds=3) < due - datetime.now(UTC) <= timedelta(seconds=5)
        retried = await api(CONTROL.format(name="retryJob"), id=handle["jobId"])
        assert retried["retryJob"]["nextAttemptAt"] is None  # due now
    finally:
        await close_runtime(runtime)


async def _attempted(api: Api, job_id: str) -> bool:
    job = await job_status(api, job_id)
    return job is not None and job["attempts"] >= 1
