"""``PgQueueReader``: the snapshot a ``queueStatus`` subscriber sees, read consistently."""

from __future__ import annotations

from typing import Final

import asyncpg

from kenning.domain.jobs import JobStatus, Lane
from kenning.domain.queue_ports import QueueCount, QueueSnapshot
from kenning.domain.scope import Scope
from kenning.storage.job_rows import JOB_COLUMNS, LANE_ORDER, to_job, visible_jobs
from kenning.storage.worker_registry import RedisWorkerRegistry

MAX_RUNNING: Final = 200
MAX_FIRST: Final = 200

_COUNTS = f"""
    SELECT status, lane, count(*) AS n FROM ingestion_jobs WHERE {visible_jobs(1)}
    GROUP BY status, lane"""
# Positions are ranks in the whole lane (what a job really waits behind); only the first
# visible ones of each lane are returned.
_QUEUED = f"""
    SELECT * FROM (
        SELECT q.*, row_number() OVER (PARTITION BY q.lane ORDER BY q.position) AS shown
        FROM (SELECT {JOB_COLUMNS},
                     row_number() OVER (PARTITION BY lane ORDER BY {LANE_ORDER}) AS position
              FROM ingestion_jobs WHERE status = 'QUEUED') q
        WHERE {visible_jobs(1, "q")}) v
    WHERE v.shown <= $4 ORDER BY v.lane DESC, v.position"""
_RUNNING = f"""
    SELECT {JOB_COLUMNS} FROM ingestion_jobs WHERE status = 'RUNNING' AND {visible_jobs(1)}
    ORDER BY updated_at LIMIT {MAX_RUNNING}"""


# In-flight jobs only: the partial index ux_jobs_inflight covers them, whatever the history.
_LIVE_COUNTS = """
    SELECT lane, status, count(*) AS n FROM ingestion_jobs
    WHERE status IN ('QUEUED', 'RUNNING') GROUP BY lane, status"""


class PgQueueReader:
    """Implements the domain's ``QueueReader``."""

    def __init__(self, pool: asyncpg.Pool, workers: RedisWorkerRegistry) -> None:
        self._pool = pool
        self._workers = workers

    async def snapshot(self, reader: Scope, first: int) -> QueueSnapshot:
        params = (reader.client_id, reader.project_id, reader.group_id)
        first = max(0, min(first, MAX_FIRST))
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            at = await conn.fetchval("SELECT now()")
            counts = await conn.fetch(_COUNTS, *params)
            queued = await conn.fetch(_QUEUED, *params, first) if first else []
            running = await conn.fetch(_RUNNING, *params)
        return QueueSnapshot(
            at=at,
            counts=_every_count({(r["lane"], r["status"]): r["n"] for r in counts}),
            queued=tuple(to_job(r) for r in queued),
            running=tuple(to_job(r) for r in running),
            workers=await self._workers.workers(),
        )

    async def live_counts(self) -> list[tuple[str, str, int]]:
        """(lane, status, count) of every QUEUED and RUNNING job, whoever owns it."""
        rows = await self._pool.fetch(_LIVE_COUNTS)
        return [(r["lane"], r["status"], r["n"]) for r in rows]


def _every_count(seen: dict[tuple[str, str], int]) -> tuple[QueueCount, ...]:
    # Every lane and status, zero included, so a UI draws the same table every time.
    return tuple(
        QueueCount(status, lane, seen.get((lane.value, status.value), 0))
        for lane in sorted(Lane, key=lambda lane: lane.value)
        for status in JobStatus
    )
