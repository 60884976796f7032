"""Resolvers of ``chunk`` and ``chunks``: the text behind ids that other reads return, by
``kenning.domain.graph.chunk_view.chunks_for`` (as MCP ``get_chunks``), read through the
request's loader."""

from __future__ import annotations

import strawberry

from kenning.domain.graph.chunk_view import chunks_for
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.loaders.loaded_chunks import LoadedChunks
from kenning.schema.access.scope import NarrowScope
from kenning.schema.retrieval.chunk import Chunk


async def resolve_chunk(info: Info, id: strawberry.ID, scope: NarrowScope = None) -> Chunk | None:
    """The chunk with this id; null when it does not exist or is not visible."""
    found = await resolve_chunks(info, [id], scope)
    return found[0]


async def resolve_chunks(
    info: Info, ids: list[strawberry.ID], scope: NarrowScope = None
) -> list[Chunk | None]:
    """Chunks by id in the order asked (one statement); null where not visible."""
    loaded = LoadedChunks(info.context.loaders)
    views = await chunks_for(caller(info), [str(i) for i in ids], to_scope(scope), loaded)
    return [None if view is None else Chunk.from_view(view) for view in views]
