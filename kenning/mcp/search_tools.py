"""The tool that searches the knowledge base (``search_knowledge``).

It calls the use case the GraphQL ``search`` resolver calls
(``resolvers/retrieval/search.py``), with the same checks, settings and metrics.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.memory.owners import user_key_of
from kenning.domain.memory.user_search import UserIndex
from kenning.domain.retrieval.search import (
    SearchFilters,
    SearchMode,
    SearchRequest,
    config_for,
    search,
)
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain, read_scope
from kenning.mcp.memory_arguments import UserKey
from kenning.mcp.tool_spec import ToolSpec

Filter = Annotated[list[str] | None, Field(description="Any of these values (omit: no filter).")]


@domain_errors
async def search_knowledge_tool(
    ctx: ToolContext,
    query: Annotated[str, Field(description="What to look for, in words or keywords.")],
    mode: Annotated[SearchMode, Field(description="HYBRID (default), VECTOR or KEYWORD.")] = (
        SearchMode.HYBRID
    ),
    limit: Annotated[int, Field(description="How many hits at most.")] = 10,
    kinds: Filter = None,
    tags: Filter = None,
    scope: NarrowScope = None,
    user_key: UserKey = None,
) -> dict[str, Any]:
    """The chunks the caller may see that best match ``query``."""
    who = caller(ctx)
    runtime, settings = who.runtime, who.runtime.settings
    request = SearchRequest(
        query=query,
        mode=mode,
        limit=limit,
        filters=SearchFilters(kinds=tuple(kinds or ()), tags=tuple(tags or ())),
    )
    fusion = settings.search_fusion_weights()
    started = time.perf_counter()
    hits = await search(
        request,
        reader=read_scope(who, scope),
        embedder=runtime.embedder,
        index=UserIndex(runtime.chunk_index, user_key_of(user_key)),
        config=config_for(mode, fusion),
        max_limit=settings.search_max_limit,
    )
    runtime.metrics.observe_search(mode.value, time.perf_counter() - started)
    return {"hits": plain(hits)}


TOOLS = (
    ToolSpec(
        "search_knowledge",
        search_knowledge_tool,
        "Search the knowledge base (documents, notes, past task outcomes, user knowledge) "
        "for passages about a question. HYBRID mode combines meaning and keywords; filter by "
        "kinds or tags when you know them. Each hit has its text, source and score.",
        read_only=True,
    ),
)
