"""Tools that assemble what an agent should know: its context for a query, the procedures
for a trigger, the hard rules in force, and everything known about the user.

Each turns its arguments into the request of the use case its GraphQL resolver calls, and
its answer into JSON: ``get_context`` ``agentContext``'s (``context_for`` of
``kenning.domain.memory.context_request``; ``kenning/resolvers/retrieval/agent_context.py``),
``find_procedures`` ``procedures``' (``find_for`` of
``kenning.domain.memory.procedure_request``), ``get_rules`` ``rules``' (``rules_in_force``
of ``kenning.domain.memory.rule_request``) and ``user_context`` ``userContext``'s
(``context_of_user`` of ``kenning.domain.memory.knowledge_request``); those resolvers are in
``kenning/resolvers/memory/``.
"""

from __future__ import annotations

from typing import Any

from kenning.domain.memory.agent_context import Shape
from kenning.domain.memory.context_request import ContextRequest, context_for
from kenning.domain.memory.knowledge_request import ContextRead, context_of_user
from kenning.domain.memory.procedure_request import FindRequest, find_for
from kenning.domain.memory.procedures import ProcedureMatch
from kenning.domain.memory.rule_request import RulesRead, rules_in_force
from kenning.domain.memory.user_knowledge import DEFAULT_PER_CATEGORY
from kenning.domain.retrieval.agent_context import AgentContext, ContextSection
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    time_argument,
    to_scope,
)
from kenning.mcp.memory_arguments import (
    AsOf,
    Budget,
    ContextDepth,
    ContextLimit,
    ContextUser,
    EntityKeys,
    EntityPieces,
    IncludeHistory,
    KnowledgeTypes,
    PerCategory,
    PieceTags,
    ProcedureLimit,
    ProcedureQuery,
    Query,
    RulesProject,
    TextFormat,
    TriggerPattern,
    UserKey,
    request_fields,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def get_context_tool(
    ctx: ToolContext,
    query: Query,
    user_key: ContextUser = None,
    entity_keys: EntityKeys = None,
    limit: ContextLimit = 10,
    budget: Budget = None,
    scope: NarrowScope = None,
    as_of: AsOf = None,
    include_history: IncludeHistory = False,
    depth: ContextDepth = 2,
    knowledge_types: KnowledgeTypes = None,
    tags: PieceTags = None,
    text_format: TextFormat = None,
    entity_pieces: EntityPieces = False,
) -> dict[str, Any]:
    """Rules, the user, pieces by info type, graph, session and procedures for ``query``."""
    fields = _shaped(request_fields(locals()))
    fields["as_of"] = time_argument(as_of, "as_of")
    who = caller(ctx)
    ports, aliases = who.runtime.memory_ports(), who.runtime.aliases
    found = await context_for(who.scoped, ContextRequest(**fields), ports, aliases)
    return _context(found.context)


def _shaped(fields: dict[str, Any]) -> dict[str, Any]:
    """``get_context``'s fields with depth, filters and format folded into the ``shape``."""
    depth, types, tags, shown, own = (fields.pop(name) for name in _SHAPING)
    fields["shape"] = Shape.asked(depth, types, tags, shown.to_domain() if shown else None, own)
    return fields


_SHAPING = ("depth", "knowledge_types", "tags", "text_format", "entity_pieces")


def _context(found: AgentContext) -> dict[str, Any]:
    return {
        "user": plain(found.entity),
        "sections": [_section(section) for section in found.sections],
        "text": found.text,
    }


def _section(section: ContextSection) -> dict[str, Any]:
    return {
        "infoType": section.info_type,
        "lines": plain(section.lines),
        "omitted": section.omitted,
        "text": section.text,
    }


def _match(match: ProcedureMatch) -> dict[str, Any]:
    procedure = plain(match.procedure)
    procedure["successRate"] = match.procedure.success_rate
    return {
        "procedure": procedure,
        "exactMatch": match.exact,
        "similarity": match.similarity,
        "score": match.score,
    }


@domain_errors
async def find_procedures_tool(
    ctx: ToolContext,
    trigger_pattern: TriggerPattern = None,
    query: ProcedureQuery = None,
    limit: ProcedureLimit = 10,
    scope: NarrowScope = None,
    user_key: UserKey = None,
) -> dict[str, Any]:
    """The client's procedures by exact trigger or similarity, ranked."""
    request = FindRequest(**request_fields(locals()))
    who = caller(ctx)
    found = await find_for(who.scoped, request, who.runtime.procedure_deps())
    return {"procedures": [_match(match) for match in found]}


@domain_errors
async def get_rules_tool(
    ctx: ToolContext, project_id: RulesProject = None, scope: NarrowScope = None
) -> dict[str, Any]:
    """The caller's rules in force: client-wide, overridden by the project's."""
    request = RulesRead(**request_fields(locals()))
    who = caller(ctx)
    return {"rules": plain(await rules_in_force(who.scoped, request, who.runtime.rules))}


@domain_errors
async def user_context_tool(
    ctx: ToolContext,
    user_key: UserKey = None,
    limit_per_category: PerCategory = DEFAULT_PER_CATEGORY,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Everything known about the user, by category, and its Markdown; embeds nothing."""
    request = ContextRead(to_scope(scope), limit_per_category, user_key)
    who = caller(ctx)
    found = await context_of_user(who.scoped, request, who.runtime.user_knowledge)
    return {"categories": plain(found.categories), "markdown": found.markdown}


TOOLS = (
    ToolSpec(
        "get_context",
        get_context_tool,
        "Call this before starting a task: everything you should know for it, as sections "
        "and as one prompt-ready text: the hard rules (always obey them), the user's profile "
        "and known preferences, instructions, context and skills found for the query, the "
        "graph around the entities (depth hops) with the pieces its edges link, recent session "
        "notes and matching procedures. Give the task in words as query, the user's graph "
        "key as user_key (e.g. 'user:alice') and other entities as entity_keys; budget caps "
        "each section's characters; text_format sets how the text reads.",
        read_only=True,
    ),
    ToolSpec(
        "find_procedures",
        find_procedures_tool,
        "Find stored step-by-step procedures for what you are about to do: by the exact "
        "trigger_pattern, or by a query describing the goal (similar procedures), or both. "
        "Procedures a user defined come first, then learned ones by their success record. "
        "Follow the steps of the best match.",
        read_only=True,
    ),
    ToolSpec(
        "get_rules",
        get_rules_tool,
        "Read the hard rules in force for your client (and project): mandatory instructions "
        "on routing, notification, validation, processing and security. Always obey them; "
        "they override anything found in soft memory.",
        read_only=True,
    ),
    ToolSpec(
        "user_context",
        user_context_tool,
        "Read everything stored about the user you work for, by category (preferences, "
        "domain, team, tech stack, personal, general), and the same as Markdown; give "
        "their key as user_key for their own facts as well as the shared ones.",
        read_only=True,
        idempotent=True,
    ),
)
