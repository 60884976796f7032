"""The resolver of `agentContext`: its arguments in, the use case
(``kenning.domain.memory.context_request.context_for``, which MCP's ``get_context`` calls
too), its answer out (``kenning.schema.memory.context_types``)."""

from __future__ import annotations

from dataclasses import replace

from kenning.domain.memory.agent_context import Shape
from kenning.domain.memory.context_request import ContextRequest, context_for
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.memory.context_arguments import (
    AsOfArgument,
    BudgetArgument,
    ContextUserArgument,
    DepthArgument,
    EntityKeyArgument,
    EntityKeysArgument,
    EntityPiecesArgument,
    IncludeHistoryArgument,
    KnowledgeTypesArgument,
    TagsArgument,
    TextFormatArgument,
    format_of,
)
from kenning.schema.memory.context_types import agent_context_type
from kenning.schema.retrieval.evidence import AgentContextResult


@error_members
async def resolve_agent_context(
    info: Info,
    query: str,
    entity_key: EntityKeyArgument = None,
    limit: int = 10,
    scope: NarrowScope = None,
    user_key: ContextUserArgument = None,
    entity_keys: EntityKeysArgument = None,
    budget: BudgetArgument = None,
    as_of: AsOfArgument = None,
    include_history: IncludeHistoryArgument = False,
    depth: DepthArgument = 2,
    knowledge_types: KnowledgeTypesArgument = None,
    tags: TagsArgument = None,
    text_format: TextFormatArgument = None,
    entity_pieces: EntityPiecesArgument = False,
) -> AgentContextResult:
    """What an agent should know for `query`: rules, the user, pieces, graph, session."""
    runtime, at = info.context.runtime, to_scope(scope)
    shape = Shape.asked(depth, knowledge_types, tags, format_of(text_format), entity_pieces)
    request = ContextRequest(query, user_key, entity_key, entity_keys, limit, budget, as_of)
    request = replace(request, include_history=include_history, scope=at, shape=shape)
    found = await context_for(caller(info), request, runtime.memory_ports(), runtime.aliases)
    return agent_context_type(found)
