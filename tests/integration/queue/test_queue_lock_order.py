"""Writers of many jobs lock them in one order (created_at, id), so they cannot deadlock.

A move used to lock the moved job first and the jobs it renumbers after; a cancel of many
jobs, holding an earlier job and then asking for the moved one, deadlocked with it (seen
once in the concurrent mix of ``test_queue_counts``). Here the cancel's two locks are taken
by hand around a move, in the order ``CANCEL_MATCHING`` takes them.
"""

from __future__ import annotations

import asyncio

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import IngestionIdentity
from kenning.domain.queue.ports import NewJob
from kenning.runtime import Runtime

SCOPE = Scope("acme", "web", "front")


async def _enqueue(runtime: Runtime, name: str) -> str:
    identity = IngestionIdentity("test", name, "v1")
    new = NewJob(identity, SCOPE, 7, f"urn:{name}", None, {})
    return (await runtime.queue.jobs.enqueue(new)).job_id


async def _waiting_on_a_lock(pool: asyncpg.Pool, own_pid: int) -> bool:
    return bool(
        await pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> $1",
            own_pid,
        )
    )


async def test_a_move_and_a_cancel_of_the_jobs_around_it_do_not_deadlock(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    first, second, last = [await _enqueue(qruntime, name) for name in ("a", "b", "c")]
    async with queue_pool.acquire() as cancel, cancel.transaction():
        await cancel.execute("SELECT 1 FROM ingestion_jobs WHERE id = $1 FOR UPDATE", first)
        # c to second place: a, ahead of it, gets an explicit position, so the move writes a.
        moving = asyncio.create_task(qruntime.queue.jobs.move(last, 2))
        own = await cancel.fetchval("SELECT pg_backend_pid()")
        for _ in range(200):
            if await _waiting_on_a_lock(queue_pool, own) or moving.done():
                break
            await asyncio.sleep(0.05)
        assert not moving.done(), "the move did not wait for the job the cancel holds"
        # The cancel's next lock: the moved job, later in the order. A move that had locked
        # it first would now wait on the cancel while the cancel waits on it.
        await cancel.execute("SELECT 1 FROM ingestion_jobs WHERE id = $1 FOR UPDATE", last)
    moved = await asyncio.wait_for(moving, 10)
    assert moved.id == last and moved.position == 2
    places = [await qruntime.queue.jobs.get(job_id, Scope()) for job_id in (first, second)]
    assert [job.position if job else None for job in places] == [1, 3]
