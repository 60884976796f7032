"""Resolvers of the `search` and `chunksByKind` queries: both call the runtime's
``SearchService`` (``kenning.domain.retrieval.search_service``), as MCP ``search_knowledge``
does."""

from __future__ import annotations

from kenning.domain.ingestion.request import KnowledgeType
from kenning.domain.retrieval.search import SearchFilters, SearchMode, SearchRequest
from kenning.domain.retrieval.search_filters import with_arguments
from kenning.domain.retrieval.search_service import SearchAsk
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import ScopeInput
from kenning.schema.retrieval import search as gql
from kenning.schema.retrieval.arguments import (
    Filter,
    MinScore,
    SearchedUser,
    SearchFilterArgument,
    SearchScope,
    VectorWeight,
)
from kenning.schema.retrieval.chunk import Chunk


@error_members
async def resolve_search(
    info: Info,
    query: str,
    mode: SearchMode = SearchMode.HYBRID,
    limit: int = 10,
    min_score: MinScore = None,
    kinds: Filter = None,
    knowledge_types: list[KnowledgeType] | None = None,
    tags: Filter = None,
    source_urns: Filter = None,
    filters: SearchFilterArgument = None,
    vector_weight: VectorWeight = None,
    scope: SearchScope = None,
    user_key: SearchedUser = None,
) -> gql.SearchResult:
    """Chunks the caller may see that best match ``query``; bad input as a union member."""
    types = tuple(t.value for t in knowledge_types or ())
    lists = SearchFilters(tuple(kinds or ()), types, tuple(tags or ()), tuple(source_urns or ()))
    narrowed = with_arguments(lists, filters)
    request = SearchRequest(query, mode, limit, min_score, narrowed, vector_weight)
    ask = SearchAsk(request, to_scope(scope), user_key)
    hits = await info.context.runtime.search_service().search(caller(info), ask)
    return gql.SearchSuccess(hits=[gql.SearchHit.from_hit(hit) for hit in hits])


async def resolve_chunks_by_kind(
    info: Info, kind: str, limit: int = 20, scope: ScopeInput | None = None
) -> list[Chunk]:
    """The newest visible chunks of one kind; never embeds anything."""
    service = info.context.runtime.search_service()
    views = await service.chunks_by_kind(caller(info), kind, limit, to_scope(scope))
    return [Chunk.from_view(view) for view in views]
