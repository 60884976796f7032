"""A ``recordTaskOutcome`` request, as GraphQL and MCP make it: the caller's write checked
first (a key that may not write there is refused even for an outcome that would not be
kept), the outcome read in the form it was given, then recorded (``outcome_extraction``),
the scope settled only for a significant one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.memory.outcome_extraction import outcome_form, record_outcome
from kenning.domain.memory.task_outcomes import (
    OutcomeNotSignificant,
    OutcomeQueued,
    TaskAction,
    TaskCategory,
)
from kenning.domain.models.health import ModelReadiness
from kenning.domain.queue.ports import JobQueue


@dataclass(frozen=True, slots=True)
class OutcomeRequest:
    """What an agent reports of one task: structured (``summary`` and its lists) or as
    ``raw_context``; ``scope`` None is the key's own."""

    task_id: str
    category: TaskCategory
    action: TaskAction
    summary: str | None = None
    raw_context: str | None = None
    has_step_results: bool = False
    error: str | None = None
    final_result: str | None = None
    key_decisions: Sequence[str] | None = None
    patterns_used: Sequence[str] | None = None
    artifacts: Sequence[str] | None = None
    lessons_learned: Sequence[str] | None = None
    topics: Sequence[str] | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class OutcomeDeps:
    """The policy and queue an outcome is recorded with."""

    policy: SecretPolicy
    queue: JobQueue
    connections: ConnectionRegistry
    models: ModelReadiness  # raw context is read by the extraction model


async def record_outcome_for(
    caller: CallerScope, request: OutcomeRequest, deps: OutcomeDeps
) -> OutcomeQueued | OutcomeNotSignificant:
    """Queue a significant outcome's document in the background lane (from raw context,
    its extraction first), or say why not."""
    caller.writing(request.scope)
    outcome = outcome_form(
        task_id=request.task_id,
        category=request.category,
        action=request.action,
        has_step_results=request.has_step_results,
        error=request.error,
        final_result=request.final_result,
        raw_context=request.raw_context,
        summary=request.summary,
        key_decisions=request.key_decisions or (),
        patterns_used=request.patterns_used or (),
        artifacts=request.artifacts or (),
        lessons_learned=request.lessons_learned or (),
        topics=request.topics or (),
    )

    async def settled_scope() -> Scope:
        return await caller.stored_writing(request.scope)

    return await record_outcome(
        outcome,
        settled_scope,
        policy=deps.policy,
        queue=deps.queue,
        connections=deps.connections,
        models=deps.models,
    )
