"""Resolvers of procedures' past: `updateProcedure`, `deleteProcedure`, `procedureHistory`.

As saving, changing a procedure needs a client-wide agent or admin key of its client; any key
of the client reads its history. Each resolver turns its arguments into the request of its
use case (``kenning.domain.memory.procedure_request``: ``update_for``, ``delete_for``,
``history_for``) and its answer into GraphQL types.
"""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.domain.memory.procedure_request import (
    ProcedureRequest,
    delete_for,
    history_for,
    update_for,
)
from kenning.domain.memory.procedure_versions import ProcedureEdit, ProcedureVersion
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.memory.procedures import to_procedure_type, to_steps
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import procedure_versions as gql
from kenning.schema.memory import procedures as procedures_gql
from kenning.schema.memory.arguments import ReasonArgument


def to_version_type(found: ProcedureVersion) -> gql.ProcedureVersion:
    """The GraphQL form of one version."""
    return gql.ProcedureVersion(
        version=found.version,
        trigger_pattern=found.trigger_pattern,
        description=found.description,
        steps=[
            procedures_gql.ProcedureStep(
                agent=s.agent, action=s.action, parameters=JSON(dict(s.parameters))
            )
            for s in found.steps
        ],
        source=found.source,
        user_key=found.user_key,
        agent_id=found.agent_id,
        created_by=found.created_by,
        created_at=found.created_at,
        superseded_at=found.superseded_at,
        deleted_at=found.deleted_at,
    )


def to_edit(input: gql.UpdateProcedureInput) -> ProcedureEdit:
    """The domain form of an update's input."""
    steps = None if input.steps is None else to_steps(input.steps)
    return ProcedureEdit(input.trigger_pattern, input.description, steps, input.source)


@error_members
async def resolve_update_procedure(
    info: Info,
    id: strawberry.ID,
    input: gql.UpdateProcedureInput,
    reason: ReasonArgument = None,
    scope: ScopeInput | None = None,
) -> gql.UpdateProcedureResult:
    """Make the procedure's next version (its history keeps the one replaced)."""
    request = ProcedureRequest(id, to_scope(scope), edit=to_edit(input), reason=reason)
    updated = await update_for(caller(info), request, info.context.runtime.procedure_deps())
    return to_procedure_type(updated)


@error_members
async def resolve_delete_procedure(
    info: Info, id: strawberry.ID, reason: ReasonArgument = None, scope: ScopeInput | None = None
) -> gql.DeleteProcedureResult:
    """Remove a procedure from every read; its versions stay in the history."""
    request = ProcedureRequest(id, to_scope(scope), reason=reason)
    deleted = await delete_for(caller(info), request, info.context.runtime.procedure_deps())
    return gql.DeleteProcedureSuccess(procedure=to_procedure_type(deleted))


async def resolve_procedure_history(
    info: Info,
    id: strawberry.ID,
    first: Annotated[int, strawberry.argument(description="1..50.")] = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.ProcedureHistoryPage:
    """One page of a procedure's versions, newest first, a deleted one included."""
    request = ProcedureRequest(id, to_scope(scope), first=first, after=after)
    page = await history_for(caller(info), request, info.context.runtime.procedure_deps())
    return gql.ProcedureHistoryPage(
        nodes=[to_version_type(v) for v in page.nodes],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )
