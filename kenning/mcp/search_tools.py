"""The tool that searches the knowledge base (``search_knowledge``).

It calls the runtime's ``SearchService`` (``kenning.domain.retrieval.search_service``), as
the GraphQL ``search`` resolver (``resolvers/retrieval/search.py``) does: the same checks,
search configuration and metrics.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.retrieval.search import SearchMode, SearchRequest
from kenning.domain.retrieval.search_service import SearchAsk
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain, to_scope
from kenning.mcp.memory_arguments import UserKey
from kenning.mcp.search_arguments import Filter, Filters, VectorWeight, search_filters
from kenning.mcp.tool_spec import ToolSpec


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
    filters: Filters = None,
    vector_weight: VectorWeight = None,
    scope: NarrowScope = None,
    user_key: UserKey = None,
) -> dict[str, Any]:
    """The chunks the caller may see that best match ``query``."""
    who = caller(ctx)
    narrowed = search_filters(kinds, tags, filters)
    request = SearchRequest(query, mode, limit, filters=narrowed, vector_weight=vector_weight)
    ask = SearchAsk(request, to_scope(scope), user_key)
    hits = await who.runtime.search_service().search(who.scoped, ask)
    return {"hits": plain(hits)}


TOOLS = (
    ToolSpec(
        "search_knowledge",
        search_knowledge_tool,
        "Search the knowledge base (documents, notes, past task outcomes, user knowledge) "
        "for passages about a question. HYBRID mode combines meaning and keywords; filter by "
        "kinds, tags, info type, source kind, connection, node or time when you know them. "
        "Each hit has its text, source and score.",
        read_only=True,
    ),
)
