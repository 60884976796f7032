"""The tool that searches the knowledge base (``search_knowledge``).

It calls the runtime's ``SearchService`` (``kenning.domain.retrieval.search_service``), as
the GraphQL ``search`` resolver (``resolvers/retrieval/search.py``) does: the same checks,
search configuration and metrics.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.retrieval.search import SearchFilters, SearchMode, SearchRequest
from kenning.domain.retrieval.search_service import SearchAsk
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain, to_scope
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
    filters = SearchFilters(kinds=tuple(kinds or ()), tags=tuple(tags or ()))
    ask = SearchAsk(SearchRequest(query, mode, limit, filters=filters), to_scope(scope), user_key)
    hits = await who.runtime.search_service().search(who.scoped, ask)
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
