"""Types of procedures' past: `updateProcedure`'s input, a version, a page of versions, and
the results of updating and deleting."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.memory.procedures import ProcedureSource
from kenning.schema.errors import (
    ConflictError,
    ErasedSubject,
    NotFoundError,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.memory.procedures import Procedure, ProcedureStep, ProcedureStepInput


@strawberry.input(description="What to change; an omitted field keeps its value.")
class UpdateProcedureInput:
    trigger_pattern: str | None = None
    description: str | None = None
    steps: list[ProcedureStepInput] | None = strawberry.field(
        default=None, description="1-50 steps, replacing all the current ones."
    )
    source: ProcedureSource | None = None


@strawberry.type(description="One version of a procedure.")
class ProcedureVersion:
    version: int
    trigger_pattern: str
    description: str
    steps: list[ProcedureStep]
    source: ProcedureSource
    user_key: str | None
    agent_id: str | None
    created_by: str = strawberry.field(description="The id of the API key that wrote it.")
    created_at: datetime
    superseded_at: datetime | None = strawberry.field(
        description="When the next version replaced it; null for the newest."
    )
    deleted_at: datetime | None = strawberry.field(
        description="When deleteProcedure removed it; null unless deleted."
    )


@strawberry.type(description="Versions of one procedure, newest first (first: 1..50).")
class ProcedureHistoryPage:
    nodes: list[ProcedureVersion]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the older versions; null on an empty page."
    )
    has_next_page: bool


@strawberry.type(description="Deleted: gone from procedures and agentContext; history stays.")
class DeleteProcedureSuccess:
    procedure: Procedure = strawberry.field(description="The procedure as it was.")


UpdateProcedureResult = Annotated[
    Procedure
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | NotFoundError
    | ConflictError
    | ErasedSubject,
    strawberry.union("UpdateProcedureResult"),
]
DeleteProcedureResult = Annotated[
    DeleteProcedureSuccess | ValidationError | ScopeError | NotFoundError,
    strawberry.union("DeleteProcedureResult"),
]
