"""ingestionProgress while a job waits: each change of its place in the lane is sent, then
RUNNING and INDEXED, with no worker running until the end.

Runs on a database of its own (not the queue's shared one), so no worker of another test
session claims the jobs it keeps waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import Lane
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.database_url import database_name, with_database
from kenning.storage.db.migrate import run_upgrade
from kenning.storage.db.pool import create_pool
from kenning.storage.queue.worker_registry import registry_key
from tests.support.database import TEST_DATABASE, recreate_database
from tests.support.graphql_api import Api
from tests.support.queue_api import close_runtime, open_runtime, request, subscribe
from tests.support.queue_api import truncate as empty_queue

pytestmark = pytest.mark.integration

DATABASE = f"{TEST_DATABASE}_positions"
PROGRESS = """subscription P($id: ID!) {
  ingestionProgress(jobId: $id) { status stage position version } }"""
# Longer than any wait below: only the position watch, not the periodic re-read of the
# row, can deliver a new position in time.
REFRESH = 60.0
WITHIN = 5.0


@pytest.fixture(scope="module")
def positions_settings(test_settings: Settings) -> Settings:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    settings = test_settings.model_copy(
        update={
            "database_url": url,
            "queue_lease_seconds": 30.0,
            "queue_idle_seconds": 0.2,
            "queue_status_refresh_seconds": REFRESH,
        }
    )
    run_upgrade(settings, "head")
    return settings


@pytest.fixture
async def runtime(positions_settings: Settings) -> AsyncIterator[Runtime]:
    pool: asyncpg.Pool = await create_pool(positions_settings, min_size=1)
    await empty_queue(pool, positions_settings)
    redis = aioredis.from_url(positions_settings.redis_url)
    await redis.delete(registry_key(database_name(positions_settings.database_url)))
    await redis.aclose()
    opened = await open_runtime(positions_settings, pool)
    yield opened
    await close_runtime(opened)
    await pool.close()


async def next_job(stream: AsyncIterator[dict[str, Any]]) -> dict[str, Any]:
    data = await asyncio.wait_for(anext(stream), WITHIN)
    job: dict[str, Any] = data["ingestionProgress"]
    return job


async def test_a_waiting_job_hears_each_new_place_then_running_and_indexed(
    runtime: Runtime,
) -> None:
    api = Api(runtime)
    handles = [await request(api, f"urn:wait:{n}") for n in range(6)]
    ahead, watched = [h["jobId"] for h in handles[:-1]], handles[-1]["jobId"]
    async with aclosing(subscribe(api, PROGRESS, id=watched)) as stream:
        await follow(runtime, stream, ahead)


async def follow(runtime: Runtime, stream: AsyncIterator[dict[str, Any]], ahead: list[str]) -> None:
    first = await next_job(stream)
    assert (first["status"], first["position"]) == ("QUEUED", 6)
    jobs, work = runtime.queue.jobs, runtime.queue.work
    positions = []
    # Jobs ahead leave the queue every way they can: claimed, cancelled while queued,
    # cancelled while running.
    claimed = await work.claim(Lane.BULK, "test-owner", 30.0)
    assert claimed is not None and claimed.job.id == ahead[0]
    positions.append((await next_job(stream))["position"])
    await jobs.cancel(ahead[1])
    positions.append((await next_job(stream))["position"])
    await jobs.cancel(ahead[0])  # running, not ahead any more: no update expected
    await jobs.cancel(ahead[3])
    positions.append((await next_job(stream))["position"])
    second = await work.claim(Lane.BULK, "test-owner", 30.0)
    assert second is not None and second.job.id == ahead[2]
    positions.append((await next_job(stream))["position"])
    await jobs.cancel(ahead[4])
    positions.append((await next_job(stream))["position"])
    assert positions == [5, 4, 3, 2, 1]
    await jobs.cancel(ahead[2])
    await runtime.queue.start_workers(runtime.job_deps(), 1)
    rest = [await next_job(stream)]
    while rest[-1]["status"] not in ("INDEXED", "FAILED"):
        rest.append(await next_job(stream))
    assert rest[0]["status"] == "RUNNING" and rest[-1]["status"] == "INDEXED"
    assert all(job["position"] is None for job in rest)


async def test_one_query_gives_every_watched_job_the_place_a_read_of_it_gives(
    runtime: Runtime,
) -> None:
    api = Api(runtime)
    bulk = [(await request(api, f"urn:bulk:{n}"))["jobId"] for n in range(5)]
    urgent = [
        (await request(api, f"urn:p:{n}", priority=p))["jobId"] for n, p in enumerate((2, 1, 2))
    ]
    jobs = runtime.queue.jobs
    await jobs.move(bulk[3], 1)  # a moved job carries its own queue_position
    await jobs.cancel(bulk[1])
    watched = [*bulk, *urgent, "no-such-job"]
    found = await runtime.queue.reader.positions(watched)
    expected = {}
    for job_id in watched:
        job = await jobs.get(job_id, Scope())
        if job is not None and job.position is not None:
            expected[job_id] = (job.version, job.position)
    assert {p.job_id: (p.version, p.position) for p in found} == expected
    assert sorted(p for _, p in expected.values()) == [1, 1, 2, 2, 3, 3, 4]
