"""Running one claimed job: exactly the ``ingest`` use case, with stages, retries and an
atomic end.

The job ends INDEXED in the same transaction that writes its chunks (``bound_store``), so a
worker killed at any moment leaves either nothing or the finished job, never chunks of a
job that will run again. Stages are reported by wrapping the ports ``ingest`` already
calls: the first embedding call means EMBEDDING, the write means STORING.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import BACKGROUND_PRIORITY, Embedder
from kenning.domain.errors import KenningError
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.ports import WriteUnit
from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.backoff import backoff_delay, is_operational, retry_after_of
from kenning.domain.queue.jobs import JobStage, JobStatus, Lease, LeaseLostError
from kenning.domain.queue.payload import from_payload
from kenning.domain.queue.ports import ClaimedJob, WorkQueue

T = TypeVar("T")

logger = logging.getLogger("kenning.queue")

MAX_ERROR = 2000


class _StageEmbedder:
    """The job's embedder; the first call records the EMBEDDING stage."""

    def __init__(self, inner: Embedder, queue: WorkQueue, lease: Lease) -> None:
        self._inner, self._queue, self._lease = inner, queue, lease
        self._reported = False

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        if not self._reported:
            self._reported = True
            await self._queue.set_stage(self._lease, JobStage.EMBEDDING)
        return await self._inner.embed(texts, priority=priority)

    async def aclose(self) -> None:
        return None  # the worker's embedder outlives the job


def _write_outcome(result: object) -> JobStatus:
    # ingest's write returns None when an identical concurrent ingest won the race.
    return JobStatus.SKIPPED_DUPLICATE if result is None else JobStatus.INDEXED


def describe(error: BaseException) -> str:
    """What a client may read about a failure: domain messages, never internals."""
    if isinstance(error, KenningError):
        return f"{error.code.value}: {error.message}"[:MAX_ERROR]
    return f"internal error ({type(error).__name__}); see the worker log"


async def run_job(
    claimed: ClaimedJob,
    queue: WorkQueue,
    deps: IngestDeps,
    operational: Callable[[BaseException], bool] = is_operational,
) -> JobStatus | None:
    """Run a claimed job to its next status; ``None`` when the lease was lost (another
    worker, a cancel or an expiry owns the job now)."""
    job, lease = claimed.job, claimed.lease
    started = time.perf_counter()
    try:
        request, override = from_payload(claimed.payload, job.scope, job.priority)
        connection = (job.scope.client_id, request.connection_id) if request.connection_id else None
        storing = _StoringStage(queue, lease, connection, deps)
        run_deps = dataclasses.replace(
            deps,
            embedder=_StageEmbedder(deps.embedder, queue, lease),
            store=storing,
            secret_policy=override or deps.secret_policy,
        )
        outcome = await ingest(request, run_deps)
        status = JobStatus(outcome.status.value)
        if not storing.wrote:
            await queue.finish(lease, JobStatus.SKIPPED_DUPLICATE)
        elif outcome.status is IngestStatus.SKIPPED_DUPLICATE:
            status = JobStatus.SKIPPED_DUPLICATE
    except LeaseLostError:
        logger.warning("queue.job.lease_lost", extra={"job_id": job.id})
        return None
    except ConnectionRevokedError as error:
        return await _end(queue, lease, JobStatus.CANCELLED, describe(error))
    except Exception as error:
        if operational(error):
            delay = backoff_delay(job.attempts + 1, retry_after_of(error))
            logger.warning(
                "queue.job.retry_later",
                extra={"job_id": job.id, "delay_s": delay, "error": describe(error)},
            )
            await _guard(queue.retry_later(lease, describe(error), delay))
            return JobStatus.QUEUED
        if not isinstance(error, KenningError):
            logger.exception("queue.job.crashed", extra={"job_id": job.id})
        return await _end(queue, lease, JobStatus.FAILED, describe(error))
    logger.info(
        "queue.job.done",
        extra={
            "job_id": job.id,
            "status": status.value,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return status


async def _end(queue: WorkQueue, lease: Lease, status: JobStatus, error: str) -> JobStatus | None:
    logger.info("queue.job.ended", extra={"job_id": lease.job_id, "status": status.value})
    done = await _guard(queue.finish(lease, status, error))
    return status if done else None


async def _guard(step: Awaitable[None]) -> bool:
    """Await a lease-checked write; a lost lease means someone else owns the job now."""
    try:
        await step
    except LeaseLostError:
        return False
    return True


class _StoringStage:
    """The knowledge store seen by a job: STORING on write, the job ended in the write's
    own transaction (see the module docstring)."""

    def __init__(
        self, queue: WorkQueue, lease: Lease, connection: tuple[str, str] | None, deps: IngestDeps
    ) -> None:
        self._queue, self._lease = queue, lease
        self._bound = queue.bound_store(deps.store, lease, _write_outcome, connection)
        self.wrote = False

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self._bound.source_hash(scope, source_urn)

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        await self._queue.set_stage(self._lease, JobStage.STORING)
        result = await self._bound.write(work)
        self.wrote = True
        return result
