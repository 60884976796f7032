"""The ``job_status`` and ``list_jobs`` tools: any queued job the key may see, with its
stage, its error and (for a crawl) its counts, as GraphQL's ``ingestionStatus`` and ``jobs``
answer them (``kenning/resolvers/queue/jobs.py``): both faces call the entries of
``kenning.domain.queue.job_reads`` (``visible_job``, ``jobs_page``).

Jobs are read at the key's own scope, as GraphQL reads them: neither tool narrows it.
"""

from __future__ import annotations

from typing import Any

from kenning.domain.errors import NotFoundError
from kenning.domain.queue.job_reads import JobsAsk, jobs_page, visible_job
from kenning.domain.queue.jobs import Job, JobFilter, JobOrder
from kenning.domain.sources.code.progress import RepositoryProgress, repository_progress
from kenning.domain.sources.crawl.crawl_run import job_progress
from kenning.mcp.auth import Caller
from kenning.mcp.calls import ToolContext, caller, domain_errors, plain
from kenning.mcp.job_arguments import (
    After,
    ConnectionId,
    First,
    JobId,
    LaneArg,
    OrderBy,
    SourceUrn,
    Statuses,
)
from kenning.mcp.tool_spec import ToolSpec


async def _job(who: Caller, job: Job) -> dict[str, Any]:
    """A job as GraphQL's ``IngestionJob`` names its fields, with a crawl's or a
    repository's counts."""
    answer: dict[str, Any] = plain(job)
    del answer["queuePosition"]  # the store's ordering key; ``position`` is the rank
    counts = await job_progress(job.id, job.source_kind, who.runtime.crawl_progress)
    answer["progress"] = plain(counts)
    files = await repository_progress(job.id, job.source_kind, who.runtime.repository_progress)
    answer["repositoryProgress"] = None if files is None else _files(files)
    return answer


def _files(progress: RepositoryProgress) -> dict[str, Any]:
    return {**plain(progress), "done": progress.done}


@domain_errors
async def job_status_tool(ctx: ToolContext, job_id: JobId) -> dict[str, Any]:
    """A visible job: status, stage, place in its lane, attempts, last error, progress."""
    who = caller(ctx)
    job = await visible_job(who.scoped, job_id, who.runtime.job_ports())
    if job is None:
        raise NotFoundError(f"no visible job {job_id}", field="jobId")
    return await _job(who, job)


@domain_errors
async def list_jobs_tool(
    ctx: ToolContext,
    statuses: Statuses = None,
    lane: LaneArg = None,
    source_urn: SourceUrn = None,
    connection_id: ConnectionId = None,
    first: First = 20,
    after: After = None,
    order_by: OrderBy = JobOrder.NEWEST,
) -> dict[str, Any]:
    """One page of the jobs the key may see, and the cursor of the next."""
    who = caller(ctx)
    where = JobFilter(frozenset(statuses) if statuses else None, lane, connection_id, source_urn)
    page = await jobs_page(
        who.scoped, JobsAsk(where, first, after, order_by), who.runtime.job_ports()
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
