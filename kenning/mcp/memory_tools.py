"""Tools that write an agent's memory: user knowledge, task outcomes and session entries,
and the tool that reads the session back.

Each turns its arguments into the request of the use case the GraphQL resolver of the same
operation calls (``kenning/resolvers/memory/``): ``store_for``
(``kenning.domain.memory.knowledge_request``), ``record_outcome_for``
(``kenning.domain.memory.outcome_request``), ``append_for`` and ``session_for``
(``kenning.domain.memory.session_request``), and its answer into JSON.
"""

from __future__ import annotations

from typing import Any

from kenning.domain.memory.knowledge_request import StoreRequest, store_for
from kenning.domain.memory.outcome_request import OutcomeRequest, record_outcome_for
from kenning.domain.memory.session import SessionSource
from kenning.domain.memory.session_request import (
    AppendRequest,
    SessionRead,
    append_for,
    session_for,
)
from kenning.domain.memory.task_outcomes import (
    OutcomeNotSignificant,
    OutcomeQueued,
    TaskAction,
    TaskCategory,
)
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain
from kenning.mcp.memory_arguments import (
    AgentId,
    Artifacts,
    EntryDetails,
    EntrySummary,
    EntryTask,
    FactCategory,
    FactContent,
    FactSubject,
    FinalResult,
    HasStepResults,
    Items,
    OutcomeSummary,
    Promote,
    RawContext,
    Reason,
    SessionLimit,
    TaskError,
    TaskId,
    Topics,
    UserKey,
    request_fields,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def store_knowledge_tool(
    ctx: ToolContext,
    subject: FactSubject,
    content: FactContent,
    category: FactCategory,
    scope: NarrowScope = None,
    user_key: UserKey = None,
    agent_id: AgentId = None,
    reason: Reason = None,
) -> dict[str, Any]:
    """Store what is known about the user; the same category, subject and user replaces it
    (the replaced version stays in its history)."""
    request = StoreRequest(**request_fields(locals()))
    who = caller(ctx)
    stored: dict[str, Any] = plain(
        await store_for(who.scoped, request, who.runtime.knowledge_deps())
    )
    return stored


@domain_errors
async def record_task_outcome_tool(
    ctx: ToolContext,
    task_id: TaskId,
    category: TaskCategory,
    action: TaskAction,
    summary: OutcomeSummary = None,
    raw_context: RawContext = None,
    has_step_results: HasStepResults = False,
    error: TaskError = None,
    final_result: FinalResult = None,
    key_decisions: Items | None = None,
    patterns_used: Items | None = None,
    artifacts: Artifacts = None,
    lessons_learned: Items | None = None,
    topics: Topics = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Queue a significant outcome's document in the background lane, or say why not."""
    request = OutcomeRequest(**request_fields(locals()))
    who = caller(ctx)
    return _outcome_answer(
        await record_outcome_for(who.scoped, request, who.runtime.outcome_deps())
    )


def _outcome_answer(done: OutcomeQueued | OutcomeNotSignificant) -> dict[str, Any]:
    if isinstance(done, OutcomeNotSignificant):
        return {
            "significant": False,
            "taskId": done.task_id,
            "reason": done.reason.value,
            "message": done.message,
        }
    return {"significant": True, **plain(done)}


@domain_errors
async def append_session_tool(
    ctx: ToolContext,
    source: SessionSource,
    summary: EntrySummary,
    details: EntryDetails = None,
    task_id: EntryTask = None,
    promote: Promote = False,
    scope: NarrowScope = None,
    user_key: UserKey = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Append an entry to the caller's client and project session."""
    request = AppendRequest(**request_fields(locals()))
    who = caller(ctx)
    done = await append_for(who.scoped, request, who.runtime.session_deps())
    return {"entry": plain(done.entry), "promotion": plain(done.promotion)}


@domain_errors
async def get_session_tool(
    ctx: ToolContext, limit: SessionLimit = 20, scope: NarrowScope = None, user_key: UserKey = None
) -> dict[str, Any]:
    """The newest unexpired entries of the caller's client and project session: the user's
    and the shared ones."""
    request = SessionRead(**request_fields(locals()))
    who = caller(ctx)
    return {"entries": plain(await session_for(who.scoped, request, who.runtime.session_entries))}


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
