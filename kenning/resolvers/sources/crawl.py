"""The ``crawl`` mutation: the input in, ``queue_crawl``
(``kenning.domain.sources.crawl.crawl_request``, as MCP's ``crawl`` calls it) checks the
spec at once and queues a crawl job in the bulk lane, the job's handle out."""

from __future__ import annotations

from kenning.domain.sources.crawl.crawl_request import CrawlAsk, queue_crawl
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.sources.crawl import CrawlInput, CrawlResult


@error_members
async def resolve_crawl(info: Info, input: CrawlInput) -> CrawlResult:
    """Queue a crawl of ``input``; the same crawl while one runs answers that job."""
    asked = CrawlAsk(
        input.url,
        max_depth=input.max_depth,
        max_pages=input.max_pages,
        same_site=input.same_site,
        include=tuple(input.include),
        exclude=tuple(input.exclude),
        recrawl_after=input.recrawl_after,
        priority=input.priority,
        scope=to_scope(input.scope),
        connection_id=input.connection_id,
    )
    ports = info.context.runtime.crawl_ports()
    return to_handle(await queue_crawl(caller(info), asked, ports))
