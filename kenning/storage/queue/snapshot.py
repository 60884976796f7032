"""``PgQueueReader``: the snapshot a ``queueStatus`` subscriber sees, read consistently."""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

import asyncpg

from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.queue.event_hub import JobPosition
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.ports import QueueCount, QueueSnapshot
from kenning.storage.db.visibility import visible_rows
from kenning.storage.queue.job_rows import (
    JOB_COLUMNS,
    LANE_ORDER,
    NO_POSITION,
    order_row,
    to_job,
)
from kenning.storage.queue.worker_registry import RedisWorkerRegistry

MAX_RUNNING: Final = 200
MAX_FIRST: Final = 200

# Counts kept per scope, lane and status by triggers on ``ingestion_jobs`` (migration 0013),
# read through the jobs' own visibility predicate: the cost follows the number of scopes,
# not the history (counting the jobs took 37-150 ms p50 at 1M jobs: bench.queue_snapshot).
_COUNTS = f"""
    SELECT status, lane, sum(n)::bigint AS n FROM queue_counts WHERE {visible_rows(1)}
    GROUP BY status, lane"""
# Positions are ranks in the whole lane (what a job really waits behind); only the first
# visible ones of each lane are returned.
_QUEUED = f"""
    SELECT * FROM (
        SELECT q.*, row_number() OVER (PARTITION BY q.lane ORDER BY q.position) AS shown
        FROM (SELECT {JOB_COLUMNS},
                     row_number() OVER (PARTITION BY lane ORDER BY {LANE_ORDER}) AS position
              FROM ingestion_jobs WHERE status = 'QUEUED') q
        WHERE {visible_rows(1, "q")}) v
    WHERE v.shown <= $4 ORDER BY v.lane DESC, v.position"""
_RUNNING = f"""
    SELECT {JOB_COLUMNS} FROM ingestion_jobs WHERE status = 'RUNNING' AND {visible_rows(1)}
    ORDER BY updated_at LIMIT {MAX_RUNNING}"""

# The ranks of every job a process's subscribers watch, in one statement. Each lane is
# ranked once, and only up to its last watched job: a count per job would scan the lane
# once per job, and ranking the whole lane sorted 50k rows for a job at place 36.
_POSITIONS = f"""
    WITH watched AS (
        SELECT id, version, lane, priority, coalesce(queue_position, {NO_POSITION}) AS place,
               created_at
        FROM ingestion_jobs WHERE id = ANY($1::text[]) AND status = 'QUEUED'),
    deepest AS (
        SELECT DISTINCT ON (lane) * FROM watched
        ORDER BY lane, priority DESC, place DESC, created_at DESC, id DESC),
    ahead AS (
        SELECT q.id, q.lane, q.priority, q.queue_position, q.created_at
        FROM ingestion_jobs q JOIN deepest d ON q.lane = d.lane
        -- The priority bound is implied by the row comparison; it lets ix_jobs_claim help.
        WHERE q.status = 'QUEUED' AND q.priority <= d.priority
          AND {order_row("q")} <= (d.priority, d.place, d.created_at, d.id)),
    ranked AS (
        SELECT id, row_number() OVER (PARTITION BY lane ORDER BY {LANE_ORDER}) AS position
        FROM ahead)
    SELECT w.id, w.version, r.position FROM watched w JOIN ranked r ON r.id = w.id"""

# In-flight jobs only: the partial index ux_jobs_inflight covers them, whatever the history.
_LIVE_COUNTS = """
    SELECT lane, status, count(*) AS n FROM ingestion_jobs
    WHERE status IN ('QUEUED', 'RUNNING') GROUP BY lane, status"""


_GROUPS = "SELECT project_id, group_id FROM project_groups WHERE client_id = $1"


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
            groups = await conn.fetch(_GROUPS, reader.client_id)
        return QueueSnapshot(
            at=at,
            counts=_every_count({(r["lane"], r["status"]): r["n"] for r in counts}),
            queued=tuple(to_job(r) for r in queued),
            running=tuple(to_job(r) for r in running),
            workers=await self._workers.workers(),
            groups=ProjectGroups({(reader.client_id, r[0]): r[1] for r in groups}),
        )

    async def positions(self, job_ids: Collection[str]) -> list[JobPosition]:
        """The rank in its lane of each of these jobs that is QUEUED (others are left out)."""
        rows = await self._pool.fetch(_POSITIONS, list(job_ids))
        return [JobPosition(r["id"], r["version"], r["position"]) for r in rows]

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
