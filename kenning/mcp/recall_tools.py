"""Tools that assemble what an agent should know: its context for a query, the procedures
for a trigger, the hard rules in force, and everything known about the user
(``user_context``, the use case of ``userContext``: ``kenning.domain.memory.user_knowledge``).

``get_context`` calls ``agentContext``'s use case (``kenning.domain.memory.agent_context``),
``find_procedures`` and ``get_rules`` the ones of ``procedures`` and ``rules``, as their
resolvers do (``kenning/resolvers/retrieval/evidence.py``, ``kenning/resolvers/memory/``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.ingestion.validity import as_of as read_time
from kenning.domain.memory import rules
from kenning.domain.memory.agent_context import When
from kenning.domain.memory.context_request import context_for_keys
from kenning.domain.memory.owners import user_key_of
from kenning.domain.memory.procedures import ProcedureMatch, find_procedures
from kenning.domain.memory.user_knowledge import DEFAULT_PER_CATEGORY, user_context
from kenning.domain.retrieval.agent_context import ContextSection
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    read_scope,
    time_argument,
)
from kenning.mcp.memory_arguments import UserKey
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def get_context_tool(
    ctx: ToolContext,
    query: Annotated[str, Field(description="What you are about to work on, in words.")],
    user_key: Annotated[
        str | None, Field(description="The user you work for, e.g. 'user:alice'.")
    ] = None,
    entity_keys: Annotated[
        list[str] | None, Field(description="Other entities the task is about (at most 20).")
    ] = None,
    limit: Annotated[int, Field(description="How many pieces to gather, 1..50.")] = 10,
    budget: Annotated[
        int | None, Field(description="Characters per section (rules are never cut).")
    ] = None,
    scope: NarrowScope = None,
    as_of: Annotated[
        str | None,
        Field(
            description="Answer as things were then (ISO 8601 with a time zone); "
            "a time to come answers as now."
        ),
    ] = None,
    include_history: Annotated[
        bool,
        Field(
            description="Also list what no longer holds, with its validity, in a "
            "'history' section (never stated as current)."
        ),
    ] = False,
) -> dict[str, Any]:
    """Rules, the user, pieces by info type, graph, session and procedures for ``query``."""
    who = caller(ctx)
    runtime = who.runtime
    now = datetime.now(UTC)
    when = When(read_time(time_argument(as_of, "as_of"), now), include_history)
    found = await context_for_keys(
        query, user=(user_key, "userKey") if user_key is not None else None,
        entity_keys=entity_keys or [], limit=limit, budget=budget,
        reader=read_scope(who, scope), now=now, ports=runtime.memory_ports(),
        aliases=runtime.aliases, when=when,
    )  # fmt: skip
    return {
        "user": plain(found.entity),
        "sections": [_section(section) for section in found.sections],
        "text": found.text,
    }


def _section(section: ContextSection) -> dict[str, Any]:
    return {"infoType": section.info_type, "lines": plain(section.lines),
            "omitted": section.omitted, "text": section.text}  # fmt: skip


def _match(match: ProcedureMatch) -> dict[str, Any]:
    procedure = plain(match.procedure)
    procedure["successRate"] = match.procedure.success_rate
    return {"procedure": procedure, "exactMatch": match.exact,
            "similarity": match.similarity, "score": match.score}  # fmt: skip


@domain_errors
async def find_procedures_tool(
    ctx: ToolContext,
    trigger_pattern: Annotated[
        str | None, Field(description="The trigger to match exactly, e.g. 'deploy service'.")
    ] = None,
    query: Annotated[
        str | None, Field(description="What you want to do, for similar procedures.")
    ] = None,
    limit: Annotated[int, Field(description="How many procedures at most.")] = 10,
    scope: NarrowScope = None,
    user_key: UserKey = None,
) -> dict[str, Any]:
    """The client's procedures by exact trigger or similarity, ranked."""
    who = caller(ctx)
    found = await find_procedures(
        read_scope(who, scope).client_id,
        trigger_pattern,
        query,
        limit,
        datetime.now(UTC),
        store=who.runtime.procedures,
        embedder=who.runtime.embedder,
        user_key=user_key_of(user_key),
    )
    return {"procedures": [_match(match) for match in found]}


@domain_errors
async def get_rules_tool(
    ctx: ToolContext,
    project_id: Annotated[
        str | None, Field(description="The project whose rules apply (default: the key's).")
    ] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The caller's rules in force: client-wide, overridden by the project's."""
    who = caller(ctx)
    reader = read_scope(who, scope)
    runtime = who.runtime
    found = await rules.active_rules(
        reader, rules.rule_scope(reader, project_id), runtime.rules, runtime.project_groups
    )
    return {"rules": plain(found)}


@domain_errors
async def user_context_tool(
    ctx: ToolContext,
    user_key: UserKey = None,
    limit_per_category: Annotated[
        int, Field(description="The most recently updated items kept per category.")
    ] = DEFAULT_PER_CATEGORY,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Everything known about the user, by category, and its Markdown; embeds nothing."""
    who = caller(ctx)
    found = await user_context(
        read_scope(who, scope),
        who.runtime.user_knowledge,
        limit_per_category,
        user_key_of(user_key),
    )
    return {"categories": plain(found.categories), "markdown": found.markdown}


TOOLS = (
    ToolSpec(
        "get_context",
        get_context_tool,
        "Call this before starting a task: everything you should know for it, as sections "
        "and as one prompt-ready text: the hard rules (always obey them), the user's profile "
        "and known preferences, instructions, context and skills found for the query, the "
        "graph around the entities, recent session notes and matching procedures. Give the "
        "task in words as query, the user's graph key as user_key (e.g. 'user:alice') and "
        "other entities as entity_keys; budget caps each section's characters.",
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
