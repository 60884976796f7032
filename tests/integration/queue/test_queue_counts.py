"""The maintained queue counts (``queue_counts``, migration 0013) stay exact: after a random,
concurrent mix of every queue operation they equal a ``count(*)`` of the jobs, per scope,
lane and status, and every reader's snapshot counts equal the old scan of the jobs it may
see. Rolled-back changes never count; updates that change no key write nothing."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError
from kenning.domain.queue.jobs import IngestionIdentity, JobFilter, JobStatus, Lane, Lease
from kenning.domain.queue.ports import NewJob
from kenning.runtime import Runtime
from kenning.storage.db.visibility import visible_rows

pytestmark = pytest.mark.integration

SCOPES = (
    Scope("acme", "web", "front"),
    Scope("acme", "api", "front"),
    Scope("acme", "", "front"),
    Scope("acme"),
    Scope("zeta", "app", ""),
    Scope(),
)
READERS = (*SCOPES, Scope("acme", "web", ""), Scope("zeta"), Scope("acme", "other", "back"))
KEY = "client_id, project_id, group_id, lane, status"
# What queueStatus counted before 0013: every visible job.
SCANNED = f"""SELECT status, lane, count(*) AS n FROM ingestion_jobs WHERE {visible_rows(1)}
              GROUP BY status, lane"""


async def exact(pool: asyncpg.Pool) -> tuple[Counter[tuple[str, ...]], Counter[tuple[str, ...]]]:
    """(kept counts, counted jobs), zeros left out, each keyed by scope, lane and status."""
    kept = await pool.fetch(f"SELECT {KEY}, n FROM queue_counts WHERE n <> 0")
    jobs = await pool.fetch(f"SELECT {KEY}, count(*) AS n FROM ingestion_jobs GROUP BY {KEY}")
    return (
        Counter({tuple(r[k] for k in KEY.split(", ")): r["n"] for r in kept}),
        Counter({tuple(r[k] for k in KEY.split(", ")): r["n"] for r in jobs}),
    )


async def actor(runtime: Runtime, seed: int, steps: int) -> int:
    """Random queue operations through the real adapters; returns how many changed a job."""
    rng = random.Random(seed)
    jobs, work = runtime.queue.jobs, runtime.queue.work
    held: list[Lease] = []
    changed = 0
    for step in range(steps):
        op = rng.choice(
            ["enqueue"] * 4
            + ["claim"] * 3
            + ["finish", "retry_later", "release", "cancel", "retry", "move", "cancel_many"]
        )
        try:
            if op == "enqueue":
                scope = rng.choice(SCOPES)
                identity = IngestionIdentity("test", f"s{seed}-{rng.randint(0, 30)}", f"v{step}")
                await jobs.enqueue(
                    NewJob(identity, scope, rng.randint(0, 9), f"urn:{seed}:{step}", None, {})
                )
            elif op == "claim":
                claimed = await work.claim(rng.choice(list(Lane)), f"w{seed}", 60)
                if claimed is not None:
                    held.append(claimed.lease)
            elif op in ("finish", "retry_later", "release") and held:
                lease = held.pop(rng.randrange(len(held)))
                if op == "finish":
                    status = rng.choice(
                        [JobStatus.INDEXED, JobStatus.FAILED, JobStatus.SKIPPED_DUPLICATE]
                    )
                    await work.finish(lease, status)
                elif op == "retry_later":
                    await work.retry_later(lease, "boom", 0)
                else:
                    await work.release(lease)
            elif op in ("cancel", "retry", "move"):
                job_id = await runtime.pool.fetchval(
                    "SELECT id FROM ingestion_jobs ORDER BY random() LIMIT 1"
                )
                if job_id is None:
                    continue
                if op == "cancel":
                    await jobs.cancel(job_id)
                elif op == "retry":
                    await jobs.retry(job_id)
                else:
                    await jobs.move(job_id, rng.randint(1, 5))
            elif op == "cancel_many":
                lane = rng.choice([None, *Lane])
                await jobs.cancel_matching(rng.choice(SCOPES), JobFilter(lane=lane), 3)
            else:
                continue
            changed += 1
        except KenningError:
            pass  # a job another actor changed first: refused, as it should be
    for lease in held:
        with contextlib.suppress(KenningError):
            await work.finish(lease, JobStatus.INDEXED)
    return changed


async def test_counts_equal_a_count_of_the_jobs_after_a_concurrent_random_mix(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    async with asyncio.TaskGroup() as group:  # one actor's error stops the others
        actors = [group.create_task(actor(qruntime, seed, 60)) for seed in range(8)]
    changed = [task.result() for task in actors]
    # Direct writes count as well: a delete, a scope change, an expired lease recovered.
    await queue_pool.execute(
        "DELETE FROM ingestion_jobs WHERE id IN (SELECT id FROM ingestion_jobs LIMIT 5)"
    )
    await queue_pool.execute(
        "UPDATE ingestion_jobs SET group_id = 'back' WHERE id IN "
        "(SELECT id FROM ingestion_jobs WHERE project_id = 'web' LIMIT 3)"
    )
    assert sum(changed) > 200
    kept, counted = await exact(queue_pool)
    assert counted.total() > 50 and len({k[4] for k in counted}) >= 4
    assert kept == counted
    for reader in READERS:
        snapshot = await qruntime.queue.reader.snapshot(reader, 0)
        shown = {(c.status.value, c.lane.value): c.count for c in snapshot.counts if c.count}
        scanned = await queue_pool.fetch(
            SCANNED, reader.client_id, reader.project_id, reader.group_id
        )
        assert shown == {(r["status"], r["lane"]): r["n"] for r in scanned}, reader


async def test_a_rolled_back_change_is_not_counted(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    await qruntime.queue.jobs.enqueue(
        NewJob(IngestionIdentity("test", "one", "v1"), SCOPES[0], 1, "urn:one", None, {})
    )
    before, _ = await exact(queue_pool)
    async with queue_pool.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        await conn.execute("UPDATE ingestion_jobs SET status = 'FAILED'")
        await conn.execute(
            "INSERT INTO ingestion_jobs (id, idempotency_key, status, lane, priority, payload) "
            "VALUES ('gone', 'gone', 'QUEUED', 'BULK', 7, '{}'::jsonb)"
        )
        await transaction.rollback()
    kept, counted = await exact(queue_pool)
    assert kept == counted == before == Counter({("acme", "web", "front", "PRIORITY", "QUEUED"): 1})


async def test_an_update_that_changes_no_key_writes_no_count(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    await qruntime.queue.jobs.enqueue(
        NewJob(IngestionIdentity("test", "one", "v1"), SCOPES[0], 1, "urn:one", None, {})
    )
    claimed = await qruntime.queue.work.claim(Lane.PRIORITY, "w", 60)
    assert claimed is not None
    version = "SELECT xmin::text FROM queue_counts WHERE status = 'RUNNING'"
    written = await queue_pool.fetchval(version)
    assert await qruntime.queue.work.heartbeat([claimed.lease], 60) == {claimed.job.id}
    await queue_pool.execute("UPDATE ingestion_jobs SET last_error = 'note'")
    assert await queue_pool.fetchval(version) == written


async def test_truncating_the_jobs_empties_the_counts(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    await qruntime.queue.jobs.enqueue(
        NewJob(IngestionIdentity("test", "one", "v1"), SCOPES[0], 1, "urn:one", None, {})
    )
    assert await queue_pool.fetchval("SELECT count(*) FROM queue_counts") == 1
    await queue_pool.execute("TRUNCATE ingestion_jobs")
    assert await queue_pool.fetchval("SELECT count(*) FROM queue_counts") == 0
