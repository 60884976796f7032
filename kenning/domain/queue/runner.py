"""Running one claimed job: its task (``tasks.py``) with stages, retries and an atomic end.

The job ends in the same transaction as its last write (``bound_store``), so a worker
killed at any moment leaves either nothing or the finished job, never chunks of a job that
will run again. Stages are reported by wrapping the ports ``ingest`` already calls: the
first embedding call means EMBEDDING, the write means STORING.

With LLM extraction the chunks' write does not end the job: it commits under the lease
(``JobDeps.held_store``), the job moves to EXTRACTING, and the extraction's write ends it
(INDEXED). A job retried after a crash or a model outage finds its chunks stored (the
ingest skips), and runs the extraction again, the cache making finished chunks free.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError, ValidationError
from kenning.domain.extraction.extract_source import ExtractionDeps, extract_source
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.ingest import ingest
from kenning.domain.ingestion.ports import KnowledgeStore, WriteUnit
from kenning.domain.ingestion.request import IngestRequest, IngestStatus
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.backoff import (
    backoff_delay,
    gave_up_waiting,
    is_operational,
    retry_after_of,
    waits_for_model,
)
from kenning.domain.queue.jobs import JobStage, JobStatus, Lease, LeaseLostError
from kenning.domain.queue.payload import extract_target, extraction_of, from_payload, task_of
from kenning.domain.queue.ports import ClaimedJob, WorkQueue
from kenning.domain.queue.stage_embedder import StageEmbedder
from kenning.domain.queue.tasks import EXTRACT_TASK, INGEST_TASK, JobDeps, TaskRun, TaskRunner

T = TypeVar("T")

logger = logging.getLogger("kenning.queue")

MAX_ERROR = 2000


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
    deps: JobDeps,
    operational: Callable[[BaseException], bool] = is_operational,
) -> JobStatus | None:
    """Run a claimed job to its next status; ``None`` when the lease was lost (another
    worker, a cancel or an expiry owns the job now)."""
    job, lease = claimed.job, claimed.lease
    started = time.perf_counter()
    try:
        status = await _run_task(claimed, queue, deps)
    except LeaseLostError:
        logger.warning("queue.job.lease_lost", extra={"job_id": job.id})
        return None
    except ConnectionRevokedError as error:
        return await _end(queue, lease, JobStatus.CANCELLED, describe(error))
    except Exception as error:
        if operational(error):
            return await _retry(claimed, queue, error, deps.model_wait_seconds)
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


async def _run_task(claimed: ClaimedJob, queue: WorkQueue, deps: JobDeps) -> JobStatus:
    job, payload = claimed.job, claimed.payload
    task = task_of(payload)
    if task == EXTRACT_TASK:
        urn, model = extract_target(payload)
        return await _extract(claimed, queue, deps, _extraction(deps, model), urn, None)
    mode = extraction_of(payload)
    extraction = _extraction(deps) if mode is ExtractionMode.LLM else None
    if task == INGEST_TASK:
        request, override = from_payload(payload, job.scope, job.priority)
    elif task in deps.runners:
        return await _run_registered(claimed, queue, deps, deps.runners[task])
    else:
        preparer = deps.preparers.get(task)
        if preparer is None:
            raise ValidationError(f"no worker here runs jobs of task {task!r}")
        prepared = await preparer(payload, job.scope, job.priority)
        if prepared is None:
            await queue.finish(claimed.lease, JobStatus.SKIPPED_DUPLICATE)
            return JobStatus.SKIPPED_DUPLICATE
        request, override = prepared, None
    return await _ingest(claimed, queue, deps, request, override, extraction)


async def _run_registered(
    claimed: ClaimedJob, queue: WorkQueue, deps: JobDeps, runner: TaskRunner
) -> JobStatus:
    """A registered runner's job: its writes commit under the lease, its answer ends it."""
    lease = claimed.lease

    async def stage(stage: JobStage) -> None:
        await queue.set_stage(lease, stage)

    # A job named with a connection writes nothing once the connection is revoked.
    job = claimed.job
    connection = (job.scope.client_id, job.connection_id) if job.connection_id else None
    store = deps.held_store(deps.ingest.store, lease, connection) if deps.held_store else None
    run_deps = dataclasses.replace(
        deps.ingest,
        embedder=StageEmbedder(deps.ingest.embedder, queue, lease),
        store=store or deps.ingest.store,
    )
    await stage(JobStage.READING)
    run = TaskRun(
        claimed.job, claimed.payload, run_deps, stage, _LeaseCheck(queue, lease, deps.lease_seconds)
    )
    status = await runner(run)
    await queue.finish(lease, status)
    return status


def _extraction(deps: JobDeps, model: str | None = None) -> ExtractionDeps:
    if deps.extraction is None:
        raise ValidationError("LLM extraction needs a model client; this worker has none")
    return deps.extraction if model is None else dataclasses.replace(deps.extraction, model=model)


async def _ingest(
    claimed: ClaimedJob,
    queue: WorkQueue,
    deps: JobDeps,
    request: IngestRequest,
    override: SecretPolicy | None,
    extraction: ExtractionDeps | None,
) -> JobStatus:
    job, lease = claimed.job, claimed.lease
    connection = (job.scope.client_id, request.connection_id) if request.connection_id else None
    store = deps.ingest.store
    if extraction is None:
        written = queue.bound_store(store, lease, _write_outcome, connection)
    else:
        # Extraction follows: the chunks commit under the lease but the job goes on.
        written = deps.held_store(store, lease, connection) if deps.held_store else store
    storing = _StoringStage(queue, lease, written)
    run_deps = dataclasses.replace(
        deps.ingest,
        embedder=StageEmbedder(deps.ingest.embedder, queue, lease),
        store=storing,
        secret_policy=override or deps.ingest.secret_policy,
    )
    outcome = await ingest(request, run_deps)
    if extraction is not None:
        urn = request.source_urn
        return await _extract(claimed, queue, deps, extraction, urn, connection)
    if not storing.wrote:
        await queue.finish(lease, JobStatus.SKIPPED_DUPLICATE)
        return JobStatus.SKIPPED_DUPLICATE
    if outcome.status is IngestStatus.SKIPPED_DUPLICATE:
        return JobStatus.SKIPPED_DUPLICATE
    return JobStatus(outcome.status.value)


async def _extract(
    claimed: ClaimedJob,
    queue: WorkQueue,
    deps: JobDeps,
    extraction: ExtractionDeps,
    source_urn: str,
    connection: tuple[str, str] | None,
) -> JobStatus:
    """The EXTRACTING stage; its write ends the job (SKIPPED_DUPLICATE: source gone)."""
    lease = claimed.lease
    await queue.set_stage(lease, JobStage.EXTRACTING)
    bound = queue.bound_store(deps.ingest.store, lease, _extract_outcome, connection)
    held = _LeaseCheck(queue, lease, deps.lease_seconds)
    report = await extract_source(
        claimed.job.scope, source_urn, extraction, store=bound, checkpoint=held
    )
    if report.skipped:
        logger.warning(
            "queue.job.chunks_skipped",
            extra={"job_id": claimed.job.id, "skipped": report.skipped, "chunks": report.chunks},
        )
    return _extract_outcome(report.graph)


class _LeaseCheck:
    """Between model calls: is the job still this worker's? A cancelled or expired job must
    not keep a model busy for its remaining chunks. Asks at most every third of the lease
    (renewing it, as the worker's heartbeat does)."""

    def __init__(self, queue: WorkQueue, lease: Lease, lease_seconds: float) -> None:
        self._queue, self._lease, self._seconds = queue, lease, lease_seconds
        self._checked = time.monotonic()

    async def __call__(self) -> None:
        if time.monotonic() - self._checked < self._seconds / 3:
            return
        self._checked = time.monotonic()
        held = await self._queue.heartbeat([self._lease], self._seconds)
        if self._lease.job_id not in held:
            raise LeaseLostError(f"job {self._lease.job_id} is no longer held; extraction stops")


def _extract_outcome(result: object) -> JobStatus:
    return JobStatus.SKIPPED_DUPLICATE if result is None else JobStatus.INDEXED


async def _retry(
    claimed: ClaimedJob, queue: WorkQueue, error: BaseException, model_wait: float
) -> JobStatus | None:
    """QUEUED again after its backoff (waiting for its model when that did not answer), or
    FAILED once it has waited for its model ``model_wait`` seconds."""
    job, lease = claimed.job, claimed.lease
    gave_up = gave_up_waiting(job, error, model_wait, datetime.now(UTC))
    if gave_up is not None:
        return await _end(queue, lease, JobStatus.FAILED, gave_up[:MAX_ERROR])
    delay = backoff_delay(job.attempts + 1, retry_after_of(error))
    logger.warning(
        "queue.job.retry_later",
        extra={"job_id": job.id, "delay_s": delay, "error": describe(error)},
    )
    for_model = waits_for_model(error)
    await _guard(queue.retry_later(lease, describe(error), delay, for_model=for_model))
    return JobStatus.QUEUED


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
    """The knowledge store seen by a job: STORING on write (the write itself may end the
    job, see the module docstring)."""

    def __init__(self, queue: WorkQueue, lease: Lease, inner: KnowledgeStore) -> None:
        self._queue, self._lease, self._inner = queue, lease, inner
        self.wrote = False

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self._inner.source_hash(scope, source_urn)

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        await self._queue.set_stage(self._lease, JobStage.STORING)
        result = await self._inner.write(work)
        self.wrote = True
        return result
