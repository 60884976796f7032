"""The ``job_status`` and ``list_jobs`` tools: any queued job the key may see, with its
stage, its error and (for a crawl) its counts, as GraphQL's ``ingestionStatus`` and ``jobs``
answer them (``kenning.domain.queue.listing``, ``kenning/resolvers/queue/jobs.py``).

Jobs are read at the key's own scope, as GraphQL reads them: neither tool narrows it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.errors import NotFoundError
from kenning.domain.queue.jobs import Job, JobFilter, JobOrder, JobStatus, Lane
from kenning.domain.queue.listing import list_jobs
from kenning.domain.sources.crawl.crawl_run import job_progress
from kenning.mcp.auth import Caller
from kenning.mcp.calls import ToolContext, caller, domain_errors, plain, read_scope
from kenning.mcp.tool_spec import ToolSpec

JobId = Annotated[str, Field(description="The job id a queueing tool answered (jobId).")]


async def _job(who: Caller, job: Job) -> dict[str, Any]:
    """A job as GraphQL's ``IngestionJob`` names its fields, with a crawl's counts."""
    answer: dict[str, Any] = plain(job)
    del answer["queuePosition"]  # the store's ordering key; ``position`` is the rank
    counts = await job_progress(job.id, job.source_kind, who.runtime.crawl_progress)
    answer["progress"] = plain(counts)
    return answer


@domain_errors
async def job_status_tool(ctx: ToolContext, job_id: JobId) -> dict[str, Any]:
    """A visible job: status, stage, place in its lane, attempts, last error, progress."""
    who = caller(ctx)
    job = await who.runtime.queue.jobs.get(job_id, read_scope(who, None))
    if job is None:
        raise NotFoundError(f"no visible job {job_id}", field="jobId")
    return await _job(who, job)


@domain_errors
async def list_jobs_tool(
    ctx: ToolContext,
    statuses: Annotated[
        list[JobStatus] | None, Field(description="Only jobs in these statuses (omit: any).")
    ] = None,
    lane: Annotated[Lane | None, Field(description="Only jobs of this lane.")] = None,
    source_urn: Annotated[str | None, Field(description="Only jobs of this source.")] = None,
    connection_id: Annotated[str | None, Field(description="Only jobs of this connection.")] = None,
    first: Annotated[int, Field(description="How many jobs, 1..500.")] = 20,
    after: Annotated[str | None, Field(description="The endCursor of the previous page.")] = None,
    order_by: Annotated[
        JobOrder,
        Field(description="NEWEST first, or CLAIM_ORDER (QUEUED jobs as workers take them)."),
    ] = JobOrder.NEWEST,
) -> dict[str, Any]:
    """One page of the jobs the key may see, and the cursor of the next."""
    who = caller(ctx)
    where = JobFilter(
        statuses=frozenset(statuses) if statuses else None,
        lane=lane,
        connection_id=connection_id,
        source_urn=source_urn,
    )
    page = await list_jobs(
        who.runtime.queue.jobs, read_scope(who, None), where, first, after, order_by
    )
    return {
        "jobs": [await _job(who, job) for job in page.jobs],
        "endCursor": page.end_cursor,
        "hasNextPage": page.has_next_page,
    }


TOOLS = (
    ToolSpec(
        "job_status",
        job_status_tool,
        "The state of any background job you may see (a queued document, an outcome, a "
        "file, a crawl, a repository): status (QUEUED, RUNNING, then INDEXED, "
        "SKIPPED_DUPLICATE, FAILED or CANCELLED), stage while it runs, place in its lane "
        "while queued, attempts, lastError, and a crawl's counts as progress. Poll it "
        "until the status is final.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "list_jobs",
        list_jobs_tool,
        "List the background jobs you may see, newest first (or QUEUED ones in the order "
        "workers take them), filtered by status, lane, source or connection; pass endCursor "
        "as after for the next page.",
        read_only=True,
        idempotent=True,
    ),
)
