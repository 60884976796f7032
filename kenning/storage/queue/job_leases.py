"""``PgWorkQueue``: atomic claims, leases with heartbeats, and lease-checked transitions.

A claim is one ``UPDATE ... FROM (SELECT ... FOR UPDATE SKIP LOCKED LIMIT 1)``: two
workers never take one job and never wait on each other. Every later write about the job
names the lease (``lease_owner``, unique per claim) and the RUNNING status, so a worker
whose lease expired — or whose job was cancelled — can change nothing any more.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Final, TypeVar

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.backoff import is_operational
from kenning.domain.queue.jobs import (
    Job,
    JobEvent,
    JobStage,
    JobStatus,
    Lane,
    Lease,
    LeaseLostError,
    lane_bounds,
)
from kenning.domain.queue.ports import ClaimedJob, EventPublisher
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.knowledge_store import PgKnowledgeStore, PgWriteUnit
from kenning.storage.queue.job_queue import wake
from kenning.storage.queue.job_rows import J_COLUMNS, JOB_COLUMNS, LANE_ORDER, to_job

T = TypeVar("T")
RECOVER_BATCH: Final = 1000
EXPIRED_MESSAGE: Final = "the worker stopped renewing its lease; queued again"

_CLAIM = f"""
    UPDATE ingestion_jobs j
    SET status = 'RUNNING', stage = 'CHUNKING', lease_owner = $3, heartbeat_at = now(),
        lease_expires_at = now() + make_interval(secs => $4), next_attempt_at = NULL,
        version = j.version + 1, updated_at = clock_timestamp()
    FROM (SELECT id FROM ingestion_jobs
          WHERE status = 'QUEUED' AND priority BETWEEN $1 AND $2
            AND (next_attempt_at IS NULL OR next_attempt_at <= now())
          ORDER BY {LANE_ORDER} LIMIT 1 FOR UPDATE SKIP LOCKED) next
    WHERE j.id = next.id
    RETURNING {J_COLUMNS}, j.payload"""
_HELD = "id = $1 AND lease_owner = $2 AND status = 'RUNNING'"
_END = (
    "stage = NULL, lease_owner = NULL, lease_expires_at = NULL, "
    "version = version + 1, updated_at = clock_timestamp()"
)
# ``_END`` for a job whose model did not answer: the stage says so, the wait's start stays.
_WAITING = (
    "stage = 'WAITING_FOR_MODEL', lease_owner = NULL, lease_expires_at = NULL, "
    "waiting_for_model_since = coalesce(waiting_for_model_since, clock_timestamp()), "
    "version = version + 1, updated_at = clock_timestamp()"
)
_FINISH = f"""UPDATE ingestion_jobs SET status = $3, last_error = $4,
                  finished_at = clock_timestamp(), {_END}
              WHERE {_HELD} RETURNING {JOB_COLUMNS}"""


def is_operational_pg(error: BaseException) -> bool:
    """``is_operational``, plus the driver's ways of saying the database was unreachable."""
    return is_operational(error) or isinstance(
        error,
        asyncpg.PostgresConnectionError
        | asyncpg.ConnectionDoesNotExistError
        | asyncpg.CannotConnectNowError
        | asyncpg.TooManyConnectionsError
        | asyncpg.AdminShutdownError
        | asyncpg.DeadlockDetectedError
        | asyncpg.SerializationError
        | OSError,
    )


class PgWorkQueue:
    """Implements the domain's ``WorkQueue``."""

    def __init__(self, pool: asyncpg.Pool, events: EventPublisher) -> None:
        self._pool = pool
        self._events = events

    async def claim(self, lane: Lane, owner: str, lease_seconds: float) -> ClaimedJob | None:
        low, high = lane_bounds(lane)
        row = await self._pool.fetchrow(_CLAIM, low, high, owner, float(lease_seconds))
        if row is None:
            return None
        job = to_job(row)
        await self._events.publish(JobEvent(job, JobStatus.QUEUED))
        return ClaimedJob(job, Lease(job.id, owner), json.loads(row["payload"]))

    async def heartbeat(self, leases: Collection[Lease], lease_seconds: float) -> set[str]:
        if not leases:
            return set()
        rows = await self._pool.fetch(
            # The held rows locked in the queue's one order (created_at, id), as a cancel
            # of many jobs locks them, so the two cannot deadlock.
            """WITH held AS (SELECT j.id FROM ingestion_jobs j
                   JOIN unnest($1::text[], $2::text[]) AS h(id, owner)
                     ON j.id = h.id AND j.lease_owner = h.owner
                   WHERE j.status = 'RUNNING' ORDER BY j.created_at, j.id FOR UPDATE OF j)
               UPDATE ingestion_jobs j SET heartbeat_at = now(),
                   lease_expires_at = now() + make_interval(secs => $3)
               FROM held WHERE j.id = held.id
               RETURNING j.id""",
            [lease.job_id for lease in leases],
            [lease.owner for lease in leases],
            float(lease_seconds),
        )
        return {r["id"] for r in rows}

    async def set_stage(self, lease: Lease, stage: JobStage) -> None:
        await self._held(
            lease,
            f"""UPDATE ingestion_jobs SET stage = $3, version = version + 1,
                updated_at = clock_timestamp() WHERE {_HELD} RETURNING {JOB_COLUMNS}""",
            stage.value,
        )

    async def finish(self, lease: Lease, status: JobStatus, error: str | None = None) -> None:
        await self._held(lease, _FINISH, status.value, error)

    async def retry_later(
        self, lease: Lease, error: str, delay: float, *, for_model: bool = False
    ) -> None:
        await self._held(
            lease,
            f"""UPDATE ingestion_jobs SET status = 'QUEUED', attempts = attempts + 1,
                next_attempt_at = now() + make_interval(secs => $3), last_error = $4,
                {_WAITING if for_model else _END}
                WHERE {_HELD} RETURNING {JOB_COLUMNS}""",
            float(delay),
            error,
        )

    async def release(self, lease: Lease) -> None:
        job = await self._held(
            lease,
            f"UPDATE ingestion_jobs SET status = 'QUEUED', {_END} WHERE {_HELD} "
            f"RETURNING {JOB_COLUMNS}",
        )
        async with self._pool.acquire() as conn:
            await wake(conn, job.lane)

    async def _held(self, lease: Lease, sql: str, *params: Any) -> Job:
        row = await self._pool.fetchrow(sql, lease.job_id, lease.owner, *params)
        if row is None:
            raise LeaseLostError(f"job {lease.job_id} is no longer held by {lease.owner}")
        job = to_job(row)
        await self._events.publish(JobEvent(job, JobStatus.RUNNING))
        return job

    async def recover_expired(self) -> int:
        rows = await self._pool.fetch(
            f"""UPDATE ingestion_jobs SET status = 'QUEUED', attempts = attempts + 1,
                last_error = $1, {_END}
                WHERE id IN (SELECT id FROM ingestion_jobs
                             WHERE status = 'RUNNING' AND lease_expires_at < now()
                             LIMIT {RECOVER_BATCH} FOR UPDATE SKIP LOCKED)
                RETURNING {JOB_COLUMNS}""",
            EXPIRED_MESSAGE,
        )
        lanes = set()
        for row in rows:
            job = to_job(row)
            lanes.add(job.lane)
            await self._events.publish(JobEvent(job, JobStatus.RUNNING))
        if lanes:
            async with self._pool.acquire() as conn:
                for lane in lanes:
                    await wake(conn, lane)
        return len(rows)

    def bound_store(
        self,
        store: KnowledgeStore,
        lease: Lease,
        outcome: Callable[[object], JobStatus],
        connection: tuple[str, str] | None,
    ) -> KnowledgeStore:
        if not isinstance(store, PgKnowledgeStore):
            raise TypeError("jobs end in the write's transaction, which needs PgKnowledgeStore")
        return _JobBoundStore(store, lease, outcome, connection, self._events)


class _JobBoundStore:
    """Writes that end their job in the same transaction (exactly-once indexing)."""

    def __init__(
        self,
        store: PgKnowledgeStore,
        lease: Lease,
        outcome: Callable[[object], JobStatus],
        connection: tuple[str, str] | None,
        events: EventPublisher,
    ) -> None:
        self._store, self._lease, self._outcome = store, lease, outcome
        self._connection, self._events = connection, events

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self._store.source_hash(scope, source_urn)

    async def write(self, work: Callable[[PgWriteUnit], Awaitable[T]]) -> T:
        ended: list[Job] = []

        async def within(unit: PgWriteUnit) -> T:
            ended.clear()  # the store retries a unit that lost a deadlock
            result = await work(unit)
            await _refuse_revoked(unit.connection, self._connection)
            row = await unit.connection.fetchrow(
                _FINISH, self._lease.job_id, self._lease.owner, self._outcome(result).value, None
            )
            if row is None:
                raise LeaseLostError(f"job {self._lease.job_id} is no longer held")
            ended.append(to_job(row))
            return result

        result = await self._store.write(within)
        await self._events.publish(JobEvent(ended[-1], JobStatus.RUNNING))
        return result


async def _refuse_revoked(conn: Connection, connection: tuple[str, str] | None) -> None:
    # FOR SHARE waits for a revocation in progress, which then purges what committed before.
    if connection is None:
        return
    status = await conn.fetchval(
        "SELECT status FROM connections WHERE client_id = $1 AND connection_id = $2 FOR SHARE",
        *connection,
    )
    if status == "REVOKED":
        raise ConnectionRevokedError(connection[1])
