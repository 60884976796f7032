"""Resolvers of the ingestion queue: request, status, listing and control of jobs.

Requests go through ``kenning.domain.queue.ingestion_request`` and reads through
``kenning.domain.queue.job_reads``, as the MCP tools ``request_ingestion``, ``job_status``
and ``list_jobs`` do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import strawberry

from kenning.domain.access.principal import Principal
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.priorities import QUEUED_PRIORITY
from kenning.domain.queue.ingestion_request import QueueAsk, queue_ingestion
from kenning.domain.queue.job_reads import JobsAsk, jobs_page, visible_job
from kenning.domain.queue.jobs import EnqueueResult, Job, JobFilter, JobOrder
from kenning.domain.queue.listing import MAX_PAGE, check_request_count
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.requests import (
    MAX_BULK_CANCEL,
    cancel_job,
    cancel_jobs,
    prioritize_job,
    reorder_job,
    retry_job,
)
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, principal, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.extraction.model_errors import model_error_members
from kenning.resolvers.ingestion.ingest import to_request
from kenning.schema.access.scope import ScopeInput, scope_info
from kenning.schema.ingestion.ingest import IngestInput, IngestionRequestInput
from kenning.schema.queue import types as gql


def to_job_type(job: Job) -> gql.IngestionJob:
    """The GraphQL form of a job."""
    return gql.IngestionJob(
        id=strawberry.ID(job.id),
        status=job.status,
        stage=job.stage,
        lane=job.lane,
        priority=job.priority,
        position=job.position,
        attempts=job.attempts,
        next_attempt_at=job.next_attempt_at,
        last_error=job.last_error,
        source_urn=job.source_urn,
        source_kind=job.source_kind,
        source_id=job.source_id,
        content_version=job.content_version,
        connection_id=job.connection_id,
        scope=scope_info(job.scope),
        version=job.version,
        created_at=job.created_at,
        updated_at=job.updated_at,
        finished_at=job.finished_at,
        waiting_for_model_since=job.waiting_for_model_since,
    )


def to_handle(result: EnqueueResult) -> gql.IngestionHandle:
    """The GraphQL form of what ``requestIngestion`` did."""
    return gql.IngestionHandle(
        job_id=strawberry.ID(result.job_id), status=result.status, position=result.position
    )


async def resolve_request_ingestion(
    info: Info, input: IngestInput, identity: gql.IngestionIdentityInput
) -> gql.RequestIngestionResult:
    """Queue a document durably and return at once; in-flight and indexed versions dedup."""
    return await _request_one(info, input, identity)


async def resolve_request_ingestions(
    info: Info, inputs: list[IngestionRequestInput]
) -> list[gql.RequestIngestionResult]:
    """Queue up to ``MAX_REQUESTS`` documents; one result per item, in order.

    Items are independent: one refused item does not stop the others.
    """
    check_request_count(len(inputs), "inputs")
    return [await _request_one(info, item.input, item.identity) for item in inputs]


@model_error_members
@error_members
async def _request_one(
    info: Info, input: IngestInput, identity: gql.IngestionIdentityInput
) -> gql.RequestIngestionResult:
    ask = QueueAsk(
        await to_request(info, input, QUEUED_PRIORITY),
        identity.source_kind,
        identity.content_version,
        identity.source_id,
        SecretPolicy(input.secret_policy.value) if input.secret_policy else None,
        input.extraction,
    )
    return to_handle(await queue_ingestion(ask, info.context.runtime.queue_ports()))


async def resolve_ingestion_status(info: Info, job_id: strawberry.ID) -> gql.IngestionJob | None:
    """A job the caller may see; null when there is none."""
    job = await visible_job(caller(info), str(job_id), info.context.runtime.job_ports())
    return to_job_type(job) if job is not None else None


def _where(filter: gql.JobFilterInput | None) -> JobFilter:
    if filter is None:
        return JobFilter()
    return JobFilter(
        statuses=frozenset(filter.statuses) if filter.statuses else None,
        lane=filter.lane,
        connection_id=filter.connection_id,
        source_urn=filter.source_urn,
    )


async def resolve_jobs(
    info: Info,
    filter: gql.JobFilterInput | None = None,
    first: int = 50,
    after: str | None = None,
    order_by: JobOrder = JobOrder.NEWEST,
) -> gql.JobPage:
    """Visible jobs in the order asked, paged by cursor; queued ones with their position."""
    ask = JobsAsk(_where(filter), first, after, order_by)
    page = await jobs_page(caller(info), ask, info.context.runtime.job_ports())
    return gql.JobPage(
        nodes=[to_job_type(job) for job in page.jobs],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )


Control = Callable[[Principal, JobQueue], Awaitable[Job]]


@error_members
async def _control(info: Info, action: Control) -> gql.JobControlResult:
    job = await action(principal(info), info.context.runtime.queue.jobs)
    return to_job_type(job)


@error_members
async def resolve_cancel_jobs(
    info: Info, filter: gql.JobFilterInput, scope: ScopeInput | None = None
) -> gql.CancelJobsResult:
    """Cancel every QUEUED or RUNNING job matching ``filter`` that the caller may write."""
    queue = info.context.runtime.queue.jobs
    jobs = await cancel_jobs(_where(filter), principal(info), queue, to_scope(scope))
    return gql.CancelJobsSuccess(
        cancelled=len(jobs),
        jobs=[to_job_type(job) for job in jobs[:MAX_PAGE]],
        more=len(jobs) >= MAX_BULK_CANCEL,
    )


async def resolve_cancel_job(info: Info, job_id: strawberry.ID) -> gql.JobControlResult:
    """Cancel a queued or running job."""
    return await _control(info, lambda caller, q: cancel_job(str(job_id), caller, q))


async def resolve_retry_job(info: Info, job_id: strawberry.ID) -> gql.JobControlResult:
    """Queue a failed or cancelled job again, or make a waiting retry due now."""
    return await _control(info, lambda caller, q: retry_job(str(job_id), caller, q))


async def resolve_reorder_queue_item(
    info: Info, job_id: strawberry.ID, position: int
) -> gql.JobControlResult:
    """Move a queued job to a 1-based position in its lane."""
    return await _control(info, lambda caller, q: reorder_job(str(job_id), position, caller, q))


async def resolve_prioritize_queue_item(info: Info, job_id: strawberry.ID) -> gql.JobControlResult:
    """Move a queued job to the front of its lane."""
    return await _control(info, lambda caller, q: prioritize_job(str(job_id), caller, q))
