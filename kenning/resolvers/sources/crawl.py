"""The ``crawl`` mutation: check the spec at once, then queue a crawl job in the bulk lane."""

from __future__ import annotations

from kenning.domain.sources.crawl.crawl_job import crawl_priority, recrawl_after, request_crawl
from kenning.domain.sources.crawl.spec import crawl_spec
from kenning.resolvers.access.scope import stored_write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.sources.crawl import CrawlInput, CrawlResult


@error_members
async def resolve_crawl(info: Info, input: CrawlInput) -> CrawlResult:
    """Queue a crawl of ``input``; the same crawl while one runs answers that job."""
    spec = crawl_spec(
        input.url,
        max_depth=input.max_depth,
        max_pages=input.max_pages,
        same_site=input.same_site,
        include=input.include,
        exclude=input.exclude,
        recrawl_after=recrawl_after(input.recrawl_after),
    )
    priority = crawl_priority(input.priority)
    scope = await stored_write_scope(info, input.scope)
    result = await request_crawl(
        spec, scope, queue=info.context.runtime.queue.jobs, priority=priority
    )
    return to_handle(result)
