"""Resolver of ``recordTaskOutcome``."""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.domain.memory.outcome_extraction import outcome_form, record_outcome
from kenning.domain.memory.task_outcomes import OutcomeNotSignificant
from kenning.resolvers.access.scope import stored_write_scope, write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.memory import task_outcomes as gql


@error_members
async def resolve_record_task_outcome(
    info: Info, input: gql.TaskOutcomeInput
) -> gql.RecordTaskOutcomeResult:
    """Queue a significant outcome's document in the background lane (from raw context,
    its extraction first), or say why not."""
    runtime = info.context.runtime
    # A key that may not write here is refused even when the outcome would not be kept.
    write_scope(info, input.scope)
    outcome = outcome_form(
        task_id=input.task_id,
        category=input.category,
        action=input.action,
        has_step_results=input.has_step_results,
        error=input.error,
        final_result=input.final_result,
        raw_context=input.raw_context,
        summary=input.summary,
        key_decisions=input.key_decisions,
        patterns_used=input.patterns_used,
        artifacts=input.artifacts,
        lessons_learned=input.lessons_learned,
        topics=input.topics,
    )

    async def settled_scope() -> Scope:
        return await stored_write_scope(info, input.scope)

    done = await record_outcome(
        outcome,
        settled_scope,
        policy=runtime.settings.secret_policy,
        queue=runtime.queue.jobs,
        connections=runtime.queue.connections,
    )
    if isinstance(done, OutcomeNotSignificant):
        return gql.TaskOutcomeNotSignificant(
            task_id=done.task_id, reason=done.reason, message=done.message
        )
    return gql.TaskOutcomeQueued(
        task_id=done.task_id, source_urn=done.source_urn, ingestion=to_handle(done.ingestion)
    )
