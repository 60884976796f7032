"""Resolvers of procedures' past: `updateProcedure`, `deleteProcedure`, `procedureHistory`.

As saving, changing a procedure needs a client-wide agent or admin key of its client; any key
of the client reads its history.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.domain.memory.procedure_versions import (
    ProcedureEdit,
    ProcedureVersion,
    delete_procedure,
    procedure_history,
    update_procedure,
)
from kenning.domain.memory.procedures import ProcedureStep
from kenning.resolvers.access.scope import principal, read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.memory.procedures import client_writer, to_procedure_type
from kenning.resolvers.memory.user_knowledge import ReasonArgument
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import procedure_versions as gql
from kenning.schema.memory import procedures as procedures_gql


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
    steps = None
    if input.steps is not None:
        # Any JSON value may arrive; check_steps refuses what is not an object, naming it.
        steps = [
            ProcedureStep(s.agent, s.action, cast(Mapping[str, object], s.parameters))
            for s in input.steps
        ]
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
    runtime = info.context.runtime
    updated = await update_procedure(
        client_writer(info, scope),
        id,
        to_edit(input),
        principal(info).key_id,
        versions=runtime.procedure_versions,
        embedder=runtime.embedder,
        changes=runtime.changes,
        reason=reason,
        guard=runtime.tombstones,
    )
    return to_procedure_type(updated)


@error_members
async def resolve_delete_procedure(
    info: Info, id: strawberry.ID, reason: ReasonArgument = None, scope: ScopeInput | None = None
) -> gql.DeleteProcedureResult:
    """Remove a procedure from every read; its versions stay in the history."""
    runtime = info.context.runtime
    deleted = await delete_procedure(
        client_writer(info, scope),
        id,
        principal(info).key_id,
        versions=runtime.procedure_versions,
        changes=runtime.changes,
        reason=reason,
    )
    return gql.DeleteProcedureSuccess(procedure=to_procedure_type(deleted))


async def resolve_procedure_history(
    info: Info,
    id: strawberry.ID,
    first: Annotated[int, strawberry.argument(description="1..50.")] = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.ProcedureHistoryPage:
    """One page of a procedure's versions, newest first, a deleted one included."""
    page = await procedure_history(
        read_scope(info, scope).client_id,
        id,
        info.context.runtime.procedure_versions,
        first=first,
        after=after,
    )
    return gql.ProcedureHistoryPage(
        nodes=[to_version_type(v) for v in page.nodes],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )
