"""Tools over the sources a key can see and manage: ``list_sources`` lists them,
``purge_crawl`` and ``purge_repository`` remove what one crawl or one repository branch
brought in.

Each calls the use case of its GraphQL operation (``sources`` in
``resolvers/sources/listing.py``, ``purgeCrawl`` and ``purgeRepository`` in
``resolvers/sources/unit_purge.py``: ``kenning.domain.sources.listing.list_sources``,
``kenning.domain.sources.unit_purge.purge_crawl`` and ``purge_repository``), which settle
the same scope and answer the same errors.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.sources.listing import (
    DEFAULT_PAGE,
    SourceFilter,
    SourcesRead,
    SourceView,
    list_sources,
)
from kenning.domain.sources.unit_purge import (
    CrawlUnit,
    RepositoryUnit,
    purge_crawl,
    purge_repository,
)
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain, to_scope
from kenning.mcp.tool_spec import ToolSpec

Values = Annotated[list[str] | None, Field(description="Any of these (omit: any).")]
UrnPrefix = Annotated[
    str | None, Field(description="Source URNs starting with this, e.g. 'web:' or 'code:shop@'.")
]
First = Annotated[int, Field(description="1..200 sources per page.")]
After = Annotated[str | None, Field(description="endCursor of the previous page.")]
JobId = Annotated[str, Field(description="Any job of the crawl, as crawl answered it.")]
Name = Annotated[str, Field(description="The repository's name in keys (repo:<name>).")]
Branch = Annotated[str, Field(description="The branch whose knowledge to remove.")]


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values is not None else None


def _source(view: SourceView) -> dict[str, Any]:
    """A source as GraphQL's ``Source`` names its fields."""
    answer: dict[str, Any] = plain(view)
    answer["storedFile"] = answer.pop("file")
    return answer


@domain_errors
async def list_sources_tool(
    ctx: ToolContext,
    kinds: Values = None,
    source_kinds: Values = None,
    connection_ids: Values = None,
    urn_prefix: UrnPrefix = None,
    first: First = DEFAULT_PAGE,
    after: After = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """One page of the sources the key may see, by URN, and the cursor of the next."""
    who = caller(ctx)
    where = SourceFilter(_tuple(kinds), _tuple(source_kinds), _tuple(connection_ids), urn_prefix)
    asked = SourcesRead(where, first, after, to_scope(scope))
    page = await list_sources(who.scoped, asked, who.runtime.source_catalog())
    return {
        "sources": [_source(view) for view in page.nodes],
        "endCursor": page.end_cursor,
        "hasNextPage": page.has_next_page,
    }


@domain_errors
async def purge_crawl_tool(
    ctx: ToolContext, job_id: JobId, scope: NarrowScope = None
) -> dict[str, Any]:
    """Remove every page a crawl stored, any run of it, after cancelling its live job."""
    who = caller(ctx)
    asked = CrawlUnit(job_id, to_scope(scope))
    answer: dict[str, Any] = plain(
        await purge_crawl(who.scoped, asked, who.runtime.unit_purge_ports())
    )
    return answer


@domain_errors
async def purge_repository_tool(
    ctx: ToolContext, name: Name, branch: Branch, scope: NarrowScope = None
) -> dict[str, Any]:
    """Remove every source of a repository's branch, after cancelling its live job."""
    who = caller(ctx)
    asked = RepositoryUnit(name, branch, to_scope(scope))
    answer: dict[str, Any] = plain(
        await purge_repository(who.scoped, asked, who.runtime.unit_purge_ports())
    )
    return answer


TOOLS = (
    ToolSpec(
        "list_sources",
        list_sources_tool,
        "List the sources you may see (documents, files, crawled pages, code), by URN: kind, "
        "source kind, connection, chunk count, when observed and indexed, the stored file. "
        "Filter by kinds, source_kinds, connection_ids or urn_prefix; pass endCursor as "
        "after for the next page.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "purge_crawl",
        purge_crawl_tool,
        "Remove everything a crawl stored, for good: every page any run of it kept, their "
        "evidence, and what only they supported; its queued or running job is cancelled. "
        "Name any job of the crawl. Only when the user asks to forget a crawled site.",
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "purge_repository",
        purge_repository_tool,
        "Remove everything a repository's branch stored, for good: its files' code "
        "knowledge and its state; its queued or running job is cancelled. Only when the "
        "user asks to forget a repository.",
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
)
