"""Tools that write an agent's memory: user knowledge, task outcomes and session entries,
and the tool that reads the session back.

Each calls the use case the GraphQL resolver of the same operation calls
(``kenning/resolvers/memory/``), with the same priority, policies and scopes.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.access.scope import Scope
from kenning.domain.memory.knowledge_versions import store_with_history
from kenning.domain.memory.outcome_extraction import outcome_form, record_outcome
from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.session import (
    SessionDeps,
    SessionDraft,
    SessionSource,
    append_session_entry,
    session_memory,
)
from kenning.domain.memory.task_outcomes import OutcomeNotSignificant, TaskAction, TaskCategory
from kenning.domain.memory.user_knowledge import KnowledgeCategory, KnowledgeEntry
from kenning.domain.priorities import INGEST_PRIORITY
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    read_scope,
    stored_write_scope,
    write_scope,
)
from kenning.mcp.memory_arguments import AgentId, Reason, UserKey
from kenning.mcp.tool_spec import ToolSpec

Items = Annotated[list[str], Field(description="Short items, one per entry.")]
RawContext = Annotated[
    str | None,
    Field(
        description="Your notes or transcript of the task (at most 32,000 characters), "
        "instead of summary and the lists: the server extracts them in the background."
    ),
]


@domain_errors
async def store_knowledge_tool(
    ctx: ToolContext,
    subject: Annotated[str, Field(description="What the fact is about, e.g. 'editor'.")],
    content: Annotated[str, Field(description="The fact itself, in plain words.")],
    category: Annotated[KnowledgeCategory, Field(description="Which kind of user knowledge.")],
    scope: NarrowScope = None,
    user_key: UserKey = None,
    agent_id: AgentId = None,
    reason: Reason = None,
) -> dict[str, Any]:
    """Store what is known about the user; the same category, subject and user replaces it
    (the replaced version stays in its history)."""
    who = caller(ctx)
    owner = owner_of(user_key, agent_id)
    entry = KnowledgeEntry(
        subject=subject,
        content=content,
        category=category,
        scope=await stored_write_scope(who, scope),
        owner=owner,
    )
    stored = await store_with_history(
        entry, who.runtime.knowledge_deps(), INGEST_PRIORITY, who.principal.key_id, reason
    )
    return {
        "sourceUrn": stored.source_urn,
        "kind": stored.kind,
        "category": category.value,
        "subject": subject.strip(),
        "status": stored.outcome.status.value,
        "contentHash": stored.outcome.content_hash,
        "userKey": owner.user_key,
    }


@domain_errors
async def record_task_outcome_tool(
    ctx: ToolContext,
    task_id: Annotated[str, Field(description="The task's id; recording again replaces it.")],
    category: TaskCategory,
    action: TaskAction,
    summary: Annotated[
        str | None, Field(description="What was done and how it ended (or give raw_context).")
    ] = None,
    raw_context: RawContext = None,
    has_step_results: Annotated[bool, Field(description="The task produced step results.")] = False,
    error: Annotated[str | None, Field(description="The error the task ended with.")] = None,
    final_result: Annotated[str | None, Field(description="The task's final answer.")] = None,
    key_decisions: Items | None = None,
    patterns_used: Items | None = None,
    artifacts: Annotated[
        list[str] | None, Field(description="Files the task touched (become file: nodes).")
    ] = None,
    lessons_learned: Items | None = None,
    topics: Annotated[list[str] | None, Field(description="Topics, stored as tags.")] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Queue a significant outcome's document in the background lane, or say why not."""
    who = caller(ctx)
    # A key that may not write here is refused even when the outcome would not be kept.
    write_scope(who, scope)
    outcome = outcome_form(
        task_id=task_id,
        category=category,
        action=action,
        has_step_results=has_step_results,
        error=error,
        final_result=final_result,
        raw_context=raw_context,
        summary=summary,
        key_decisions=key_decisions or (),
        patterns_used=patterns_used or (),
        artifacts=artifacts or (),
        lessons_learned=lessons_learned or (),
        topics=topics or (),
    )

    async def settled_scope() -> Scope:
        return await stored_write_scope(who, scope)

    settings = who.runtime.settings
    done = await record_outcome(
        outcome,
        settled_scope,
        policy=settings.secret_policy,
        queue=who.runtime.queue.jobs,
        connections=who.runtime.queue.connections,
    )
    if isinstance(done, OutcomeNotSignificant):
        return {"significant": False, "taskId": done.task_id, "reason": done.reason.value,
                "message": done.message}  # fmt: skip
    return {"significant": True, **plain(done)}


@domain_errors
async def append_session_tool(
    ctx: ToolContext,
    source: SessionSource,
    summary: Annotated[str, Field(description="At most 200 characters.")],
    details: Annotated[
        dict[str, Any] | None, Field(description="A JSON object of at most 16 KiB.")
    ] = None,
    task_id: Annotated[str | None, Field(description="The task this entry belongs to.")] = None,
    promote: Annotated[bool, Field(description="Also ingest it into the knowledge base.")] = False,
    scope: NarrowScope = None,
    user_key: UserKey = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Append an entry to the caller's client and project session."""
    who = caller(ctx)
    writer = await stored_write_scope(who, scope)
    runtime = who.runtime
    deps = SessionDeps(
        store=runtime.session_entries,
        queue=runtime.queue.jobs,
        connections=runtime.queue.connections,
        policy=runtime.settings.secret_policy,
        ttl=timedelta(days=runtime.settings.session_ttl_days),
        guard=runtime.tombstones,
    )
    draft = SessionDraft(source, summary, details, task_id, promote, owner_of(user_key, agent_id))
    done = await append_session_entry(draft, writer, who.principal.key_id, deps)
    return {"entry": plain(done.entry), "promotion": plain(done.promotion)}


@domain_errors
async def get_session_tool(
    ctx: ToolContext,
    limit: Annotated[int, Field(description="How many entries, 1..50.")] = 20,
    scope: NarrowScope = None,
    user_key: UserKey = None,
) -> dict[str, Any]:
    """The newest unexpired entries of the caller's client and project session: the user's
    and the shared ones."""
    who = caller(ctx)
    found = await session_memory(
        read_scope(who, scope), limit, who.runtime.session_entries, user_key_of(user_key)
    )
    return {"entries": plain(found)}


TOOLS = (
    ToolSpec(
        "store_knowledge",
        store_knowledge_tool,
        "Remember a fact about the user you work for (a preference, their domain, team, tech "
        "stack, personal detail or anything general). Give the user's key as user_key (e.g. "
        "'user:alice') so the fact is theirs alone; omit it for facts shared by everyone. "
        "Storing the same category, subject and user again replaces the old fact (kept in "
        "get_history), so update facts by re-storing them; forget_knowledge removes one. Use "
        "get_context to read them back.",
        read_only=False,
    ),
    ToolSpec(
        "record_task_outcome",
        record_task_outcome_tool,
        "Record how a finished task went so later tasks can learn from it. Only significant "
        "outcomes are kept (single tasks that changed code or trackers, or answered with step "
        "results; epics; generative work; never advice, failed tasks or empty results): the "
        "answer says whether it was kept and why not. Give either summary with the lists, "
        "or raw_context (your notes of the task) and the server extracts them. Kept "
        "outcomes are indexed in the background; recording the same task_id again replaces "
        "the earlier record.",
        read_only=False,
        idempotent=True,  # the same task_id again replaces it
    ),
    ToolSpec(
        "append_session",
        append_session_tool,
        "Add a short note (summary of at most 200 characters, optional JSON details) to this "
        "project's session log: what the user said in chat, what a background job found, or "
        "a decision you made. Entries are kept 7 days, the newest 50. Set promote to also "
        "store the note permanently in the knowledge base.",
        read_only=False,
    ),
    ToolSpec(
        "get_session",
        get_session_tool,
        "Read the newest entries of this project's session log (newest first), to recall "
        "what happened recently in the conversation and in background work.",
        read_only=True,
    ),
)
