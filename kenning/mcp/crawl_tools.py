"""The ``crawl`` and ``crawl_status`` tools: queue a crawl exactly as GraphQL's ``crawl``
does (``kenning.domain.sources.crawl.crawl_job.request_crawl``), and read a crawl job's
status with its live counts, scoped like ``ingestionStatus``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.errors import NotFoundError
from kenning.domain.sources.crawl.crawl_job import (
    CRAWL_SOURCE_KIND,
    crawl_priority,
    request_crawl,
)
from kenning.domain.sources.crawl.crawl_job import recrawl_after as recrawl_duration
from kenning.domain.sources.crawl.spec import crawl_spec
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    read_scope,
    stored_write_scope,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def crawl_tool(
    ctx: ToolContext,
    url: Annotated[str, Field(description="The start URL (http or https).")],
    max_depth: Annotated[int, Field(description="Links away from the start, 0..20.")] = 2,
    max_pages: Annotated[int, Field(description="URLs visited at most, 1..5000.")] = 100,
    same_site: Annotated[bool, Field(description="Stay on the start host.")] = True,
    include: Annotated[
        list[str] | None, Field(description="Glob patterns to keep, e.g. '/docs/*'.")
    ] = None,
    exclude: Annotated[list[str] | None, Field(description="Glob patterns to skip.")] = None,
    recrawl_after: Annotated[
        int | None, Field(description="Seconds: pages fetched more recently are not fetched.")
    ] = None,
    priority: Annotated[int | None, Field(description="3..9 (bulk lane); default 6.")] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Queue a crawl; answers the job (the same crawl while one runs answers that job)."""
    who = caller(ctx)
    spec = crawl_spec(
        url, max_depth=max_depth, max_pages=max_pages, same_site=same_site,
        include=tuple(include or ()), exclude=tuple(exclude or ()),
        recrawl_after=recrawl_duration(recrawl_after),
    )  # fmt: skip
    chosen = crawl_priority(priority)
    writer = await stored_write_scope(who, scope)
    queued = await request_crawl(spec, writer, queue=who.runtime.queue.jobs, priority=chosen)
    return {"jobId": queued.job_id, "status": queued.status.value, "position": queued.position}


@domain_errors
async def crawl_status_tool(
    ctx: ToolContext,
    job_id: Annotated[str, Field(description="The jobId the crawl tool answered.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """A visible crawl job's status, stage, last error and counts so far."""
    who = caller(ctx)
    job = await who.runtime.queue.jobs.get(job_id, read_scope(who, scope))
    if job is None or job.source_kind != CRAWL_SOURCE_KIND:
        raise NotFoundError(f"no visible crawl job {job_id}", field="jobId")
    counts = await who.runtime.crawl_progress.get(job.id)
    return {
        "jobId": job.id, "url": job.source_id, "status": job.status.value,
        "stage": job.stage.value if job.stage else None, "lastError": job.last_error,
        "progress": asdict(counts) if counts is not None else None,
    }  # fmt: skip


TOOLS = (
    ToolSpec(
        "crawl",
        crawl_tool,
        "Queue a crawl of a documentation site into the knowledge base (background lane): "
        "robots.txt respected, navigation stripped, each page a source 'web:<url>' with "
        "links_to edges between pages. Re-crawling revalidates stored pages and stores only "
        "what changed. Answers a job id; follow it with crawl_status.",
        read_only=False,
        # It fetches the web; the same crawl asked again while one runs is that job.
        idempotent=True,
        open_world=True,
    ),
    ToolSpec(
        "crawl_status",
        crawl_status_tool,
        "The status of a crawl job and its counts so far (fetched, unchanged, skipped, "
        "failed, queued, stored); lastError says why a crawl failed.",
        read_only=True,
    ),
)
