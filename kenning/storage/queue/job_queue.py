"""``PgJobQueue``: requesting, reading and controlling jobs in PostgreSQL.

Every change is one committed row change (its ``version`` bumped) followed by one
published event; a NOTIFY on ``kenning_jobs`` wakes idle workers of the lane.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ConflictError, NotFoundError
from kenning.domain.queue.jobs import (
    EnqueueResult,
    HandleStatus,
    Job,
    JobEvent,
    JobFilter,
    JobOrder,
    JobPage,
    JobStateError,
    JobStatus,
    Lane,
    lane_bounds,
    lane_of,
)
from kenning.domain.queue.ports import EventPublisher, NewJob
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import visible_rows
from kenning.storage.queue.job_order import move_queued_job
from kenning.storage.queue.job_queue_sql import (
    CANCEL_MATCHING,
    CANCEL_PURGED,
    CLAIM_PAGE,
    IN_FLIGHT,
    INSERT,
    LAST_DONE,
    NEWEST_PAGE,
    POSITION,
)
from kenning.storage.queue.job_rows import (
    J_COLUMNS,
    JOB_COLUMNS,
    decode_claim_cursor,
    decode_cursor,
    encode_claim_cursor,
    encode_cursor,
    to_job,
)

WAKE_CHANNEL: Final = "kenning_jobs"
MAX_PAGE: Final = 500
_ATTEMPTS: Final = 5
PURGED_MESSAGE: Final = "cancelled: what it would index was purged"


async def wake(conn: Connection, lane: Lane) -> None:
    """Tell idle workers of ``lane`` that a job may be due."""
    await conn.execute("SELECT pg_notify($1, $2)", WAKE_CHANNEL, lane.value)


async def queue_position(conn: Connection, job: Job) -> int:
    """The job's 1-based rank among its lane's queued jobs."""
    low, high = lane_bounds(job.lane)
    value = await conn.fetchval(
        POSITION, low, high, job.priority, job.queue_position, job.created_at, job.id
    )
    return int(value)


class PgJobQueue:
    """Implements the domain's ``JobQueue``."""

    def __init__(self, pool: asyncpg.Pool, events: EventPublisher) -> None:
        self._pool = pool
        self._events = events

    async def enqueue(self, job: NewJob) -> EnqueueResult:
        scope = (job.scope.client_id, job.scope.project_id, job.scope.group_id)
        identity = job.identity
        lane = lane_of(job.priority)
        async with self._pool.acquire() as conn:
            for _ in range(_ATTEMPTS):
                done = await conn.fetchrow(LAST_DONE, *scope, identity.source_key)
                if done and done["present"] and done["idempotency_key"] == identity.key:
                    return EnqueueResult(done["id"], HandleStatus.SKIPPED, None)
                row = await conn.fetchrow(
                    INSERT,
                    str(uuid.uuid4()),
                    identity.key,
                    lane.value,
                    job.priority,
                    *scope,
                    job.source_urn,
                    job.connection_id,
                    identity.source_kind,
                    identity.source_id,
                    identity.content_version,
                    identity.source_key,
                    json.dumps(dict(job.payload)),
                )
                if row is not None:
                    queued = to_job(row)
                    await self._events.publish(JobEvent(queued, None))
                    await wake(conn, lane)
                    return EnqueueResult(
                        queued.id, HandleStatus.QUEUED, await queue_position(conn, queued)
                    )
                twin = await conn.fetchrow(IN_FLIGHT, *scope, identity.key)
                if twin is not None:
                    position = None
                    if twin["status"] == JobStatus.QUEUED:
                        position = await self._position_of(conn, twin)
                    return EnqueueResult(twin["id"], HandleStatus.DUPLICATE, position)
        raise ConflictError("the identical job kept changing state; request again")

    async def _position_of(self, conn: Connection, row: Any) -> int:
        low, high = lane_bounds(Lane(row["lane"]))
        value = await conn.fetchval(
            POSITION,
            low,
            high,
            row["priority"],
            row["queue_position"],
            row["created_at"],
            row["id"],
        )
        return int(value)

    async def get(self, job_id: str, reader: Scope) -> Job | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(
                f"SELECT {JOB_COLUMNS} FROM ingestion_jobs WHERE id = $1 AND {visible_rows(2)}",
                job_id,
                reader.client_id,
                reader.project_id,
                reader.group_id,
            )
            if row is None:
                return None
            job = to_job(row)
            if job.status is JobStatus.QUEUED:
                job = _with_position(job, await queue_position(conn, job))
            return job

    async def page(
        self,
        reader: Scope,
        where: JobFilter,
        first: int,
        after: str | None,
        order: JobOrder = JobOrder.NEWEST,
    ) -> JobPage:
        first = max(1, min(first, MAX_PAGE))
        filters = (
            sorted(s.value for s in where.statuses) if where.statuses else None,
            where.lane.value if where.lane else None,
            where.connection_id,
            where.source_urn,
        )
        scope = (reader.client_id, reader.project_id, reader.group_id)
        if order is JobOrder.CLAIM_ORDER:
            at = decode_claim_cursor(after) if after else None
            cursor = (
                (at.priority, at.queue_position, at.created_at, at.job_id) if at else (None,) * 4
            )
            rows = await self._pool.fetch(CLAIM_PAGE, *scope, *filters, *cursor, first + 1)
            jobs = tuple(to_job(r) for r in rows[:first])
            end = encode_claim_cursor(jobs[-1]) if jobs else None
        else:
            stamp, last_id = decode_cursor(after) if after else (None, None)
            rows = await self._pool.fetch(NEWEST_PAGE, *scope, *filters, stamp, last_id, first + 1)
            jobs = tuple(to_job(r) for r in rows[:first])
            end = encode_cursor(jobs[-1].created_at, jobs[-1].id) if jobs else None
        return JobPage(jobs, end, len(rows) > first)

    async def cancel_matching(self, writer: Scope, where: JobFilter, limit: int) -> list[Job]:
        statuses = {JobStatus.QUEUED, JobStatus.RUNNING}
        wanted = statuses & where.statuses if where.statuses is not None else statuses
        rows = await self._pool.fetch(
            CANCEL_MATCHING,
            writer.client_id,
            writer.project_id,
            writer.group_id,
            sorted(s.value for s in wanted),
            where.lane.value if where.lane else None,
            where.connection_id,
            where.source_urn,
            limit,
        )
        cancelled = [to_job(row) for row in rows]
        await self._events.publish_many(
            [
                JobEvent(job, JobStatus(row["previous"]))
                for job, row in zip(cancelled, rows, strict=True)
            ]
        )
        return cancelled

    async def cancel_purged(
        self, scope: Scope, *, source_urn: str | None = None, connection_id: str | None = None
    ) -> int:
        where = (scope.client_id, scope.project_id, scope.group_id, connection_id, source_urn)
        rows = await self._pool.fetch(CANCEL_PURGED, *where, PURGED_MESSAGE)
        await self._events.publish_many(
            [JobEvent(to_job(r), JobStatus(r["previous"])) for r in rows]
        )
        return len(rows)

    async def cancel(self, job_id: str) -> Job:
        return await self._change(
            job_id,
            frozenset({JobStatus.QUEUED, JobStatus.RUNNING}),
            "status = 'CANCELLED', stage = NULL, lease_owner = NULL, lease_expires_at = NULL, "
            "finished_at = clock_timestamp()",
        )

    async def retry(self, job_id: str) -> Job:
        allowed = frozenset({JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.QUEUED})
        try:
            job = await self._change(
                job_id,
                allowed,
                "status = 'QUEUED', stage = NULL, next_attempt_at = NULL, finished_at = NULL",
            )
        except asyncpg.UniqueViolationError as error:
            raise JobStateError(
                "an identical job is already queued or running", JobStatus.CANCELLED
            ) from error
        async with self._pool.acquire() as conn:
            await wake(conn, job.lane)
            return _with_position(job, await queue_position(conn, job))

    async def _change(self, job_id: str, allowed: frozenset[JobStatus], assignments: str) -> Job:
        async with self._pool.acquire() as conn, conn.transaction():
            current = await conn.fetchval(
                "SELECT status FROM ingestion_jobs WHERE id = $1 FOR UPDATE", job_id
            )
            if current is None:
                raise NotFoundError(f"no job {job_id}", field="jobId")
            previous = JobStatus(current)
            if previous not in allowed:
                raise JobStateError(f"job {job_id} is {previous.value}", previous)
            row = await conn.fetchrow(
                f"""UPDATE ingestion_jobs SET {assignments}, version = version + 1,
                    updated_at = clock_timestamp() WHERE id = $1 RETURNING {JOB_COLUMNS}""",
                job_id,
            )
        assert row is not None  # locked above
        job = to_job(row)
        await self._events.publish(JobEvent(job, previous))
        return job

    async def move(self, job_id: str, position: int) -> Job:
        async with self._pool.acquire() as conn:
            row = await move_queued_job(conn, job_id, position)
            assert row is not None
            job = to_job(row)
            await self._events.publish(JobEvent(job, JobStatus.QUEUED))
            await wake(conn, job.lane)
            return _with_position(job, await queue_position(conn, job))

    async def cancel_connection(self, client_id: str, connection_id: str) -> int:
        # Rows locked in the queue's one order (created_at, id), as ``CANCEL_MATCHING``.
        rows = await self._pool.fetch(
            f"""WITH chosen AS (SELECT id FROM ingestion_jobs
                WHERE client_id = $1 AND connection_id = $2 AND status = 'QUEUED'
                ORDER BY created_at, id FOR UPDATE)
                UPDATE ingestion_jobs j SET status = 'CANCELLED', last_error = 'connection revoked',
                finished_at = clock_timestamp(), version = j.version + 1,
                updated_at = clock_timestamp()
                FROM chosen WHERE j.id = chosen.id AND j.status = 'QUEUED'
                RETURNING {J_COLUMNS}""",
            client_id,
            connection_id,
        )
        await self._events.publish_many([JobEvent(to_job(r), JobStatus.QUEUED) for r in rows])
        return len(rows)


def _with_position(job: Job, position: int) -> Job:
    return replace(job, position=position)
