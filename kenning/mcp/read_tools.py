"""Reads an agent asks for by id, query or key: ``get_chunks`` (the text behind chunk ids),
``evidence_pack`` (search hits with the graph around them), and ``find_path`` (how two entities
are connected).

Each calls the domain entry of its GraphQL query (``chunks``, ``evidencePack``, ``path``:
``kenning.domain.graph.chunk_view.chunks_for``,
``kenning.domain.retrieval.evidence_request.evidence_for``,
``kenning.domain.graph.reads.find_path``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.graph.chunk_view import chunks_for
from kenning.domain.graph.model import Direction
from kenning.domain.graph.path_request import PathEnds
from kenning.domain.graph.reads import PathAsk, find_path
from kenning.domain.retrieval.evidence_request import EvidenceAsk, evidence_for
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    time_argument,
    to_scope,
)
from kenning.mcp.graph_arguments import (
    PathAsOf,
    PathDepth,
    PathDirection,
    PathEdgeTypes,
    PathEnd,
    PathStart,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def get_chunks_tool(
    ctx: ToolContext,
    ids: Annotated[list[str], Field(description="Chunk ids (at most 1000), e.g. from hits.")],
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The chunks with these ids in the order asked; null where none is visible."""
    who = caller(ctx)
    found = await chunks_for(who.scoped, ids, to_scope(scope), who.runtime.chunks)
    return {"chunks": plain(found)}


@domain_errors
async def evidence_pack_tool(
    ctx: ToolContext,
    query: Annotated[str, Field(description="The question to gather evidence for.")],
    hops: Annotated[int, Field(description="Graph hops around what the hits mention.")] = 2,
    limit: Annotated[int, Field(description="How many search hits at most.")] = 10,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Search hits plus the graph within ``hops`` of the entities they mention."""
    who = caller(ctx)
    ask = EvidenceAsk(query, hops, limit, to_scope(scope))
    found = await evidence_for(who.scoped, ask, who.runtime.evidence_ports())
    answer: dict[str, Any] = plain(found.pack)
    return answer


@domain_errors
async def find_path_tool(
    ctx: ToolContext,
    from_key: PathStart,
    to_key: PathEnd,
    max_depth: PathDepth = 4,
    edge_types: PathEdgeTypes = None,
    direction: PathDirection = Direction.BOTH,
    as_of: PathAsOf = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """One shortest path between two entities; ``path`` is null when there is none."""
    who = caller(ctx)
    ends = PathEnds(from_key, to_key, "from_key", "to_key")
    when = time_argument(as_of, "as_of")
    ask = PathAsk(ends, max_depth, edge_types, direction, when, to_scope(scope))
    found = (await find_path(who.scoped, ask, who.runtime.graph_ports())).found
    if found is None:
        return {"path": None}
    return {"path": {"length": found.length, **plain(found)}}


TOOLS = (
    ToolSpec(
        "get_chunks",
        get_chunks_tool,
        "Read the full text and metadata of chunks by id (the chunkIds that search hits, "
        "evidence packs, context lines and edges' evidence name), in the order asked; null "
        "for an id you may not see.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "evidence_pack",
        evidence_pack_tool,
        "Gather the evidence for a question in one call: the best search hits and the "
        "graph within hops of the entities they mention (edges with their evidence), with "
        "a summary. Use it when an answer must cite its sources.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "find_path",
        find_path_tool,
        "Find how two entities are connected: one shortest path of at most max_depth edges "
        "between from_key and to_key in the graph (optionally only some edge types, one "
        "direction, or as of a past time); path is null when none exists.",
        read_only=True,
        idempotent=True,
    ),
)
