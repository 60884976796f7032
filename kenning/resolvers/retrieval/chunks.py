"""Resolvers of ``chunk`` and ``chunks``: the text behind ids that other reads return."""

from __future__ import annotations

import strawberry

from kenning.domain.graph.chunk_view import check_chunk_ids
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.schema.access.scope import NarrowScope
from kenning.schema.retrieval.chunk import Chunk


async def resolve_chunk(info: Info, id: strawberry.ID, scope: NarrowScope = None) -> Chunk | None:
    """The chunk with this id; null when it does not exist or is not visible."""
    view = await info.context.loaders.chunks_by_id(read_scope(info, scope)).load(str(id))
    return None if view is None else Chunk.from_view(view)


async def resolve_chunks(
    info: Info, ids: list[strawberry.ID], scope: NarrowScope = None
) -> list[Chunk | None]:
    """Chunks by id in the order asked (one statement); null where not visible."""
    check_chunk_ids(ids)
    loader = info.context.loaders.chunks_by_id(read_scope(info, scope))
    views = await loader.load_many([str(chunk_id) for chunk_id in ids])
    return [None if view is None else Chunk.from_view(view) for view in views]
