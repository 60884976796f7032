"""A crawl as GraphQL's ``crawl`` and MCP's ``crawl``/``crawl_status`` ask for it: the spec
and the priority checked (a bad field named), the caller's write scope settled, the job
queued (``crawl_job.request_crawl``); and a visible crawl job read with its live counts.

Example::

    queued = await queue_crawl(caller, CrawlAsk("https://docs.example.com/"), ports)
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError
from kenning.domain.ingestion.rules import check_write_connection
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.queue.jobs import EnqueueResult, Job
from kenning.domain.queue.ports import JobQueue
from kenning.domain.sources.crawl.crawl_job import (
    CRAWL_SOURCE_KIND,
    crawl_priority,
    recrawl_after,
    request_crawl,
)
from kenning.domain.sources.crawl.crawl_loop import CrawlProgress
from kenning.domain.sources.crawl.crawl_run import ProgressBoard
from kenning.domain.sources.crawl.page_graph import PAGE_SOURCE_KIND
from kenning.domain.sources.crawl.spec import DEFAULT_DEPTH, DEFAULT_PAGES, crawl_spec


@dataclass(frozen=True, slots=True)
class CrawlAsk:
    """A crawl as a caller asks for it (``recrawl_after`` in seconds; ``priority`` None: the
    crawl default) at ``scope`` (None: the key's own)."""

    url: str
    max_depth: int = DEFAULT_DEPTH
    max_pages: int = DEFAULT_PAGES
    same_site: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    recrawl_after: int | None = None
    priority: int | None = None
    scope: Scope | None = None
    # The registered connection the pages come through (revoking it purges them).
    connection_id: str | None = None


@dataclass(frozen=True, slots=True)
class CrawlPorts:
    """The queue crawl jobs wait in, the board of their live counts, and the connections
    a crawl may name."""

    jobs: JobQueue
    progress: ProgressBoard
    connections: ConnectionRegistry


@dataclass(frozen=True, slots=True)
class CrawlStatus:
    """A crawl job and its counts so far (None: not started, expired or unreachable)."""

    job: Job
    progress: CrawlProgress | None


async def queue_crawl(caller: CallerScope, asked: CrawlAsk, ports: CrawlPorts) -> EnqueueResult:
    """Queue a crawl of ``asked``; the same crawl while one runs answers that job."""
    spec = crawl_spec(
        asked.url,
        max_depth=asked.max_depth,
        max_pages=asked.max_pages,
        same_site=asked.same_site,
        include=asked.include,
        exclude=asked.exclude,
        recrawl_after=recrawl_after(asked.recrawl_after),
    )
    priority = crawl_priority(asked.priority)
    scope = await caller.stored_writing(asked.scope)
    await check_write_connection(scope, asked.connection_id, PAGE_SOURCE_KIND, ports.connections)
    return await request_crawl(
        spec, scope, queue=ports.jobs, priority=priority, connection_id=asked.connection_id
    )


async def crawl_status(
    caller: CallerScope, job_id: str, scope: Scope | None, ports: CrawlPorts
) -> CrawlStatus:
    """The crawl job ``job_id`` as the caller reads it, with its counts so far."""
    job = await ports.jobs.get(job_id, caller.reading(scope))
    if job is None or job.source_kind != CRAWL_SOURCE_KIND:
        raise NotFoundError(f"no visible crawl job {job_id}", field="jobId")
    return CrawlStatus(job, await ports.progress.get(job.id))
