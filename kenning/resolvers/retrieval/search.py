"""Resolvers of the `search` and `chunksByKind` queries."""

from __future__ import annotations

import time
from typing import Annotated

import strawberry

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.request import KnowledgeType
from kenning.domain.memory.owners import user_key_of
from kenning.domain.memory.user_search import UserIndex
from kenning.domain.retrieval.search import (
    SearchFilters,
    SearchHit,
    SearchMode,
    SearchRequest,
    config_for,
    search,
)
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import ScopeInput
from kenning.schema.retrieval import search as gql
from kenning.schema.retrieval.chunk import Chunk

_Filter = Annotated[
    list[str] | None, strawberry.argument(description="Any of these values (omit: no filter).")
]


def _hit(hit: SearchHit) -> gql.SearchHit:
    return gql.SearchHit(
        chunk=Chunk.from_view(hit.chunk),
        score=hit.score,
        vector_rank=hit.vector_rank,
        keyword_rank=hit.keyword_rank,
        source_urn=hit.chunk.source_urn,
        kind=hit.chunk.kind,
        graph_refs=list(hit.chunk.graph_refs),
    )


@error_members
async def resolve_search(
    info: Info,
    query: str,
    mode: SearchMode = SearchMode.HYBRID,
    limit: int = 10,
    min_score: Annotated[
        float | None, strawberry.argument(description="Drop hits scoring below this.")
    ] = None,
    kinds: _Filter = None,
    knowledge_types: list[KnowledgeType] | None = None,
    tags: _Filter = None,
    source_urns: _Filter = None,
    scope: Annotated[
        ScopeInput | None, strawberry.argument(description="Narrows the key's scope.")
    ] = None,
    user_key: Annotated[
        str | None,
        strawberry.argument(
            description="The user searched for: their user knowledge is found, another "
            "user's never (none: only shared user knowledge)."
        ),
    ] = None,
) -> gql.SearchResult:
    """Chunks the caller may see that best match ``query``; bad input as a union member."""
    settings = info.context.runtime.settings
    reader = read_scope(info, scope)
    request = SearchRequest(
        query=query,
        mode=mode,
        limit=limit,
        min_score=min_score,
        filters=SearchFilters(
            kinds=tuple(kinds or ()),
            knowledge_types=tuple(t.value for t in knowledge_types or ()),
            tags=tuple(tags or ()),
            source_urns=tuple(source_urns or ()),
        ),
    )
    fusion = settings.search_fusion_weights()
    started = time.perf_counter()
    hits = await search(
        request,
        reader=reader,
        embedder=info.context.runtime.embedder,
        index=UserIndex(info.context.runtime.chunk_index, user_key_of(user_key)),
        config=config_for(mode, fusion),
        max_limit=settings.search_max_limit,
    )
    info.context.runtime.metrics.observe_search(mode.value, time.perf_counter() - started)
    return gql.SearchSuccess(hits=[_hit(hit) for hit in hits])


async def resolve_chunks_by_kind(
    info: Info, kind: str, limit: int = 20, scope: ScopeInput | None = None
) -> list[Chunk]:
    """The newest visible chunks of one kind; never embeds anything."""
    reader = read_scope(info, scope)
    max_limit = info.context.runtime.settings.search_max_limit
    if not kind.strip():
        raise ValidationError("kind must not be empty", field="kind")
    if not 1 <= limit <= max_limit:
        raise ValidationError(f"limit must be between 1 and {max_limit}", field="limit")
    views = await info.context.runtime.chunks.by_kind(kind, reader, limit)
    return [Chunk.from_view(view) for view in views]
