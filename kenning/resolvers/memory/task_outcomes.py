"""Resolver of ``recordTaskOutcome``: its input in, the use case
(``kenning.domain.memory.outcome_request.record_outcome_for``, which MCP's
``record_task_outcome`` calls too), its answer out."""

from __future__ import annotations

from kenning.domain.memory.outcome_request import OutcomeRequest, record_outcome_for
from kenning.domain.memory.task_outcomes import OutcomeNotSignificant
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.extraction.model_errors import model_error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.memory import task_outcomes as gql


def to_request(input: gql.TaskOutcomeInput) -> OutcomeRequest:
    """The domain form of the mutation's input."""
    return OutcomeRequest(
        task_id=input.task_id,
        category=input.category,
        action=input.action,
        summary=input.summary,
        raw_context=input.raw_context,
        has_step_results=input.has_step_results,
        error=input.error,
        final_result=input.final_result,
        key_decisions=input.key_decisions,
        patterns_used=input.patterns_used,
        artifacts=input.artifacts,
        lessons_learned=input.lessons_learned,
        topics=input.topics,
        scope=to_scope(input.scope),
    )


@model_error_members
@error_members
async def resolve_record_task_outcome(
    info: Info, input: gql.TaskOutcomeInput
) -> gql.RecordTaskOutcomeResult:
    """Queue a significant outcome's document in the background lane (from raw context,
    its extraction first), or say why not."""
    runtime = info.context.runtime
    done = await record_outcome_for(caller(info), to_request(input), runtime.outcome_deps())
    if isinstance(done, OutcomeNotSignificant):
        return gql.TaskOutcomeNotSignificant(
            task_id=done.task_id, reason=done.reason, message=done.message
        )
    return gql.TaskOutcomeQueued(
        task_id=done.task_id, source_urn=done.source_urn, ingestion=to_handle(done.ingestion)
    )
