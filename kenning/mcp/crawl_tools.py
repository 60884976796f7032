"""The ``crawl`` and ``crawl_status`` tools: queue a crawl exactly as GraphQL's ``crawl``
(``resolvers/sources/crawl.py``) does, and read a crawl job's status with its live counts,
scoped like ``ingestionStatus``; both through ``kenning.domain.sources.crawl.crawl_request``
(``queue_crawl``, ``crawl_status``)."""

from __future__ import annotations

from typing import Any

from kenning.domain.sources.crawl.crawl_request import CrawlAsk, crawl_status, queue_crawl
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain, to_scope
from kenning.mcp.crawl_arguments import (
    Exclude,
    Include,
    JobId,
    MaxDepth,
    MaxPages,
    Priority,
    RecrawlAfter,
    SameSite,
    Through,
    Url,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def crawl_tool(
    ctx: ToolContext,
    url: Url,
    max_depth: MaxDepth = 2,
    max_pages: MaxPages = 100,
    same_site: SameSite = True,
    include: Include = None,
    exclude: Exclude = None,
    recrawl_after: RecrawlAfter = None,
    priority: Priority = None,
    scope: NarrowScope = None,
    connection_id: Through = None,
) -> dict[str, Any]:
    """Queue a crawl; answers the job (the same crawl while one runs answers that job)."""
    who = caller(ctx)
    lists = tuple(include or ()), tuple(exclude or ())
    limits = (max_depth, max_pages, same_site, *lists, recrawl_after, priority)
    asked = CrawlAsk(url, *limits, to_scope(scope), connection_id)
    queued = await queue_crawl(who.scoped, asked, who.runtime.crawl_ports())
    return {"jobId": queued.job_id, "status": queued.status.value, "position": queued.position}


@domain_errors
async def crawl_status_tool(
    ctx: ToolContext, job_id: JobId, scope: NarrowScope = None
) -> dict[str, Any]:
    """A visible crawl job's status, stage, last error and counts so far."""
    who = caller(ctx)
    found = await crawl_status(who.scoped, job_id, to_scope(scope), who.runtime.crawl_ports())
    job = found.job
    return {
        "jobId": job.id,
        "url": job.source_id,
        "status": job.status.value,
        "stage": job.stage.value if job.stage else None,
        "lastError": job.last_error,
        "progress": plain(found.progress),
    }


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
