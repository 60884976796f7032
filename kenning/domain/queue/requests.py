"""Use cases of the queue API: request ingestion, and control jobs as a principal."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.extraction.graph_extraction import EXTRACT_PROMPT_VERSION
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.ingestion.rules import check_identifiers, check_request, check_write_connection
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import EXTRACTION_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity, Job, JobFilter
from kenning.domain.queue.payload import extract_payload, to_payload
from kenning.domain.queue.ports import JobQueue, NewJob
from kenning.domain.queue.tasks import EXTRACT_TASK

logger = logging.getLogger("kenning.queue")


async def request_ingestion(
    request: IngestRequest,
    identity: IngestionIdentity,
    *,
    policy: SecretPolicy,
    override: SecretPolicy | None,
    queue: JobQueue,
    connections: ConnectionRegistry,
    extraction: ExtractionMode = ExtractionMode.NONE,
    tombstones: WriteGuard | None = None,
) -> EnqueueResult:
    """Check the request as ``ingest`` would, then queue it (or say it is in flight or done).

    The secret check runs here, before anything is stored: a queued payload never holds a
    credential (REJECT refuses the request, REDACT stores the redacted text), and neither
    does the job's identity. The connection, when named, must be registered.
    """
    if tombstones is not None:
        # A queued payload never holds an erased subject's name either.
        request = await tombstones.guarded(request)
    size = len(request.content) + sum(map(len, request.relationships))
    cleaned = await off_loop(size, lambda: _checked(request, identity, policy))
    await check_write_connection(
        request.scope, request.connection_id, request.source_kind, connections
    )
    result = await queue.enqueue(
        NewJob(
            identity=identity,
            scope=request.scope,
            priority=request.priority,
            source_urn=request.source_urn,
            connection_id=request.connection_id,
            payload=to_payload(cleaned, override, extraction),
        )
    )
    logger.info(
        "ingestion.requested",
        extra={
            "job_id": result.job_id,
            "handle": result.status.value,
            "source_urn": request.source_urn,
            "scope": request.scope.describe(),
            "priority": request.priority,
        },
    )
    return result


def chosen_extraction(
    requested: ExtractionMode | None, kind: str, by_kind: Mapping[str, ExtractionMode]
) -> ExtractionMode:
    """The request's extraction, else the kind's setting, else NONE."""
    return requested or by_kind.get(kind, ExtractionMode.NONE)


async def request_extraction(
    scope: Scope, source_urn: str, content_hash: str, *, model: str, queue: JobQueue
) -> EnqueueResult:
    """Queue the graph extraction of a stored source (bulk lane, P3 model calls).

    Idempotent: the same source, content, model and prompt version is one job, so an
    unchanged re-ingest answers the job already queued or done."""
    version = "\x1f".join((content_hash, model, EXTRACT_PROMPT_VERSION))
    identity = IngestionIdentity(
        EXTRACT_TASK, source_urn, hashlib.sha256(version.encode()).hexdigest()
    )
    result = await queue.enqueue(
        NewJob(
            identity=identity,
            scope=scope,
            priority=EXTRACTION_PRIORITY,
            source_urn=source_urn,
            connection_id=None,
            payload=extract_payload(source_urn, model),
        )
    )
    logger.info(
        "extraction.requested",
        extra={
            "job_id": result.job_id,
            "handle": result.status.value,
            "source_urn": source_urn,
            "scope": scope.describe(),
            "model": model,
        },
    )
    return result


def _checked(
    request: IngestRequest, identity: IngestionIdentity, policy: SecretPolicy
) -> IngestRequest:
    cleaned = check_request(request, policy)
    check_identifiers(
        [
            (f"identity.{name}", value)
            for name, value in (
                ("sourceKind", identity.source_kind),
                ("sourceId", identity.source_id),
                ("contentVersion", identity.content_version),
            )
            if value
        ]
    )
    return cleaned


# One call of cancelJobs cancels at most this many; the result says when more matched.
MAX_BULK_CANCEL = 10_000


async def cancel_jobs(
    where: JobFilter, caller: Principal, queue: JobQueue, scope: Scope | None = None
) -> list[Job]:
    """Cancel the QUEUED and RUNNING jobs matching ``where`` that the caller may write
    (written at its scope, or at ``scope`` when it narrows it); at most ``MAX_BULK_CANCEL``."""
    writer = caller.writing(scope)
    if where == JobFilter():
        # One stray call must not empty a whole queue (a global key's is every client's).
        raise ValidationError(
            "give at least one of statuses, lane, connectionId or sourceUrn", field="filter"
        )
    return await queue.cancel_matching(writer, where, MAX_BULK_CANCEL)


async def _writable(job_id: str, caller: Principal, queue: JobQueue) -> Job:
    job = await queue.get(job_id, caller.scope)
    if job is None:
        raise NotFoundError(f"no visible job {job_id}", field="jobId")
    caller.writing(job.scope)
    return job


async def cancel_job(job_id: str, caller: Principal, queue: JobQueue) -> Job:
    """Cancel a queued or running job the caller may write."""
    await _writable(job_id, caller, queue)
    return await queue.cancel(job_id)


async def retry_job(job_id: str, caller: Principal, queue: JobQueue) -> Job:
    """Queue a failed or cancelled job again, or make a waiting one due now."""
    await _writable(job_id, caller, queue)
    return await queue.retry(job_id)


async def reorder_job(job_id: str, position: int, caller: Principal, queue: JobQueue) -> Job:
    """Move a queued job to a 1-based position in its lane."""
    await _writable(job_id, caller, queue)
    return await queue.move(job_id, position)


async def prioritize_job(job_id: str, caller: Principal, queue: JobQueue) -> Job:
    """Move a queued job to the front of its lane."""
    return await reorder_job(job_id, 1, caller, queue)
