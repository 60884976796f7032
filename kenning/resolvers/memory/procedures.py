"""Resolvers of procedural memory: save a procedure, find procedures, record a run.

Procedures belong to a client: the one of the key's scope (a global key names it with
``scope``). Reading needs any key of that client, saving and recording a run an agent key.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.procedures import (
    Procedure,
    ProcedureDraft,
    ProcedureMatch,
    ProcedureStep,
    find_procedures,
    procedure_client,
    record_procedure_run,
    save_procedure,
)
from kenning.resolvers.access.scope import principal, read_scope, write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import procedures as gql


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


def client_writer(info: Info, scope: ScopeInput | None) -> str:
    """The client whose procedures the key may change (a client-wide key only)."""
    return procedure_client(write_scope(info, scope))


@error_members
async def resolve_save_procedure(
    info: Info, input: gql.SaveProcedureInput
) -> gql.SaveProcedureResult:
    """Store a procedure for the key's client, embedded for similarity search."""
    runtime = info.context.runtime
    client = client_writer(info, input.scope)
    draft = ProcedureDraft(
        trigger_pattern=input.trigger_pattern,
        description=input.description,
        # Any JSON value may arrive; check_steps refuses what is not an object, naming it.
        steps=[
            ProcedureStep(s.agent, s.action, cast(Mapping[str, object], s.parameters))
            for s in input.steps
        ],
        source=input.source,
        owner=owner_of(input.user_key, input.agent_id),
    )
    saved = await save_procedure(
        client,
        draft,
        principal(info).key_id,
        store=runtime.procedures,
        embedder=runtime.embedder,
        changes=runtime.changes,
        reason=input.reason,
        guard=runtime.tombstones,
    )
    return to_procedure_type(saved)


async def resolve_procedures(
    info: Info,
    trigger_pattern: str | None = None,
    query: str | None = None,
    limit: int = 10,
    scope: NarrowScope = None,
    user_key: Annotated[
        str | None,
        strawberry.argument(
            description="The user: their procedures and the client's; none: the client's only."
        ),
    ] = None,
) -> list[gql.ProcedureMatch]:
    """The client's procedures whose trigger equals ``triggerPattern`` or that are similar
    to ``query`` (or the trigger): USER_DEFINED first, then LEARNED by track record."""
    runtime = info.context.runtime
    found = await find_procedures(
        read_scope(info, scope).client_id,
        trigger_pattern,
        query,
        limit,
        datetime.now(UTC),
        store=runtime.procedures,
        embedder=runtime.embedder,
        user_key=user_key_of(user_key),
    )
    return [to_match_type(match) for match in found]


@error_members
async def resolve_record_procedure_run(
    info: Info, id: strawberry.ID, success: bool, scope: ScopeInput | None = None
) -> gql.RecordProcedureRunResult:
    """Count one run of a procedure: usageCount, lastUsed and successRate change at once."""
    client = client_writer(info, scope)
    recorded = await record_procedure_run(
        client, id, success, store=info.context.runtime.procedures
    )
    return to_procedure_type(recorded)
