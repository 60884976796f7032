"""Resolvers of procedural memory: save a procedure, find procedures, record a run.

Procedures belong to a client: the one of the key's scope (a global key names it with
``scope``). Reading needs any key of that client, saving and recording a run an agent key.
Each resolver turns its arguments into the request of its use case
(``kenning.domain.memory.procedure_request``: ``save_for``, ``find_for``, ``run_for``, which
MCP's ``save_procedure``, ``find_procedures`` and ``record_procedure_run`` call too) and its
answer into GraphQL types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.procedure_request import (
    FindRequest,
    ProcedureRequest,
    SaveRequest,
    find_for,
    run_for,
    save_for,
)
from kenning.domain.memory.procedures import Procedure, ProcedureMatch, ProcedureStep
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import procedures as gql

ProcedureUserArgument = Annotated[
    str | None,
    strawberry.argument(
        description="The user: their procedures and the client's; none: the client's only."
    ),
]


def to_procedure_type(found: Procedure) -> gql.Procedure:
    """The GraphQL form of a stored procedure."""
    return gql.Procedure(
        id=strawberry.ID(found.id),
        trigger_pattern=found.trigger_pattern,
        description=found.description,
        steps=[
            gql.ProcedureStep(agent=s.agent, action=s.action, parameters=JSON(dict(s.parameters)))
            for s in found.steps
        ],
        source=found.source,
        usage_count=found.usage_count,
        success_rate=found.success_rate,
        last_used=found.last_used,
        created_by=found.created_by,
        created_at=found.created_at,
        updated_at=found.updated_at,
        version=found.version,
        user_key=found.user_key,
        agent_id=found.agent_id,
    )


def to_match_type(match: ProcedureMatch) -> gql.ProcedureMatch:
    """The GraphQL form of a found procedure."""
    return gql.ProcedureMatch(
        procedure=to_procedure_type(match.procedure),
        exact_match=match.exact,
        similarity=match.similarity,
        score=match.score,
    )


def to_steps(steps: list[gql.ProcedureStepInput]) -> list[ProcedureStep]:
    """The domain form of steps; any JSON value may arrive as parameters (``check_steps``
    refuses what is not an object, naming it)."""
    return [
        ProcedureStep(s.agent, s.action, cast(Mapping[str, object], s.parameters)) for s in steps
    ]


def to_save_request(input: gql.SaveProcedureInput) -> SaveRequest:
    """The domain form of ``saveProcedure``'s input."""
    return SaveRequest(
        trigger_pattern=input.trigger_pattern,
        description=input.description,
        steps=to_steps(input.steps),
        source=input.source,
        scope=to_scope(input.scope),
        user_key=input.user_key,
        agent_id=input.agent_id,
        reason=input.reason,
    )


@error_members
async def resolve_save_procedure(
    info: Info, input: gql.SaveProcedureInput
) -> gql.SaveProcedureResult:
    """Store a procedure for the key's client, embedded for similarity search."""
    request = to_save_request(input)
    saved = await save_for(caller(info), request, info.context.runtime.procedure_deps())
    return to_procedure_type(saved)


async def resolve_procedures(
    info: Info,
    trigger_pattern: str | None = None,
    query: str | None = None,
    limit: int = 10,
    scope: NarrowScope = None,
    user_key: ProcedureUserArgument = None,
) -> list[gql.ProcedureMatch]:
    """The client's procedures whose trigger equals ``triggerPattern`` or that are similar
    to ``query`` (or the trigger): USER_DEFINED first, then LEARNED by track record."""
    request = FindRequest(trigger_pattern, query, limit, to_scope(scope), user_key)
    found = await find_for(caller(info), request, info.context.runtime.procedure_deps())
    return [to_match_type(match) for match in found]


@error_members
async def resolve_record_procedure_run(
    info: Info, id: strawberry.ID, success: bool, scope: ScopeInput | None = None
) -> gql.RecordProcedureRunResult:
    """Count one run of a procedure: usageCount, lastUsed and successRate change at once."""
    request = ProcedureRequest(id, to_scope(scope), success=success)
    recorded = await run_for(caller(info), request, info.context.runtime.procedure_deps())
    return to_procedure_type(recorded)
