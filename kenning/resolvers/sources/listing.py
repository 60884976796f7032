"""Resolvers of ``sources`` and ``storedFiles``: each turns its arguments into the request of
its use case (``kenning.domain.sources.listing``: ``list_sources``, which MCP's
``list_sources`` calls too, and ``list_stored_files``) and the page into GraphQL types."""

from __future__ import annotations

from kenning.domain.sources.listing import (
    DEFAULT_PAGE,
    PageRead,
    SourceFilter,
    SourcesRead,
    SourceView,
    list_sources,
    list_stored_files,
)
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.sources.files import to_stored_file
from kenning.schema.access.scope import NarrowScope, scope_info
from kenning.schema.sources.listing import Source, SourceFilterInput, SourcePage, StoredFilePage


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values is not None else None


def to_filter(given: SourceFilterInput | None) -> SourceFilter:
    """The domain form of a ``SourceFilterInput`` (None: no filter)."""
    if given is None:
        return SourceFilter()
    return SourceFilter(
        _tuple(given.kinds),
        _tuple(given.source_kinds),
        _tuple(given.connection_ids),
        given.urn_prefix,
    )


def to_source(view: SourceView) -> Source:
    """The GraphQL form of a listed source."""
    file = to_stored_file(view.file) if view.file is not None else None
    return Source(
        source_urn=view.source_urn,
        kind=view.kind,
        source_kind=view.source_kind,
        connection_id=view.connection_id,
        chunk_count=view.chunk_count,
        observed_at=view.observed_at,
        indexed_at=view.indexed_at,
        scope=scope_info(view.scope),
        stored_file=file,
    )


async def resolve_sources(
    info: Info,
    filter: SourceFilterInput | None = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> SourcePage:
    """One page of the sources the caller may see, by URN."""
    asked = SourcesRead(to_filter(filter), first, after, to_scope(scope))
    page = await list_sources(caller(info), asked, info.context.runtime.source_catalog())
    nodes = [to_source(view) for view in page.nodes]
    return SourcePage(nodes=nodes, end_cursor=page.end_cursor, has_next_page=page.has_next_page)


async def resolve_stored_files(
    info: Info, first: int = DEFAULT_PAGE, after: str | None = None, scope: NarrowScope = None
) -> StoredFilePage:
    """One page of the stored originals the caller may see, by source URN."""
    asked = PageRead(first, after, to_scope(scope))
    page = await list_stored_files(caller(info), asked, info.context.runtime.source_catalog())
    nodes = [to_stored_file(file) for file in page.nodes]
    return StoredFilePage(nodes=nodes, end_cursor=page.end_cursor, has_next_page=page.has_next_page)
