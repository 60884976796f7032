"""Types of procedural memory: `saveProcedure`, `procedures`, `recordProcedureRun`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.procedures import ProcedureSource
from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import (
    ErasedSubject,
    NotFoundError,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)

strawberry.enum(
    ProcedureSource,
    description="Who made a procedure: an agent that learned it, or a person (always first).",
)


@strawberry.input(description="One step: which agent does which action with which parameters.")
class ProcedureStepInput:
    agent: str
    action: str
    parameters: JSON = strawberry.field(
        default_factory=dict, description="A JSON object; never credentials."
    )


@strawberry.input(description="A procedure for a recurring task, stored for the key's client.")
class SaveProcedureInput:
    trigger_pattern: str = strawberry.field(
        description="What a request looks like when this procedure applies (1-500 characters)."
    )
    description: str
    steps: list[ProcedureStepInput] = strawberry.field(description="1-50 steps, in order.")
    source: ProcedureSource = ProcedureSource.LEARNED
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Only its client counts: procedures belong to a client."
    )
    user_key: str | None = strawberry.field(
        default=None,
        description="The user it belongs to, as a node key (user:alice); none: the whole "
        "client's. Saving the same trigger, source and user again makes a new version.",
    )
    agent_id: str | None = strawberry.field(default=None, description="The agent that learned it.")
    reason: str | None = strawberry.field(
        default=None, description="Why, kept in the change log when this replaces a version."
    )


@strawberry.type(description="One step of a procedure.")
class ProcedureStep:
    agent: str
    action: str
    parameters: JSON


@strawberry.type(description="How a client's agents do a recurring task, and how well it went.")
class Procedure:
    id: strawberry.ID
    trigger_pattern: str
    description: str
    steps: list[ProcedureStep]
    source: ProcedureSource
    usage_count: int
    success_rate: float | None = strawberry.field(
        description="Successful runs over runs; null before the first run."
    )
    last_used: datetime | None
    created_by: str = strawberry.field(description="The id of the API key that saved it.")
    created_at: datetime
    updated_at: datetime
    version: int = strawberry.field(description="1 when saved first, then n+1 per update.")
    user_key: str | None = strawberry.field(description="Whose procedure; null: the client's.")
    agent_id: str | None = strawberry.field(description="The agent that learned it.")


@strawberry.type(description="A procedure found for a trigger or query, and how it matched.")
class ProcedureMatch:
    procedure: Procedure
    exact_match: bool = strawberry.field(description="Its trigger equals the one asked for.")
    similarity: float | None = strawberry.field(
        description="Cosine similarity of its trigger and description to the query."
    )
    score: float = strawberry.field(
        description="USER_DEFINED: the match (1 when exact, else similarity). LEARNED: "
        "match * (successes + 1) / (runs + 2) * 0.5 ^ (days since lastUsed / 30)."
    )


SaveProcedureResult = Annotated[
    Procedure | ValidationError | SensitiveContentError | ScopeError | ErasedSubject,
    strawberry.union("SaveProcedureResult"),
]
RecordProcedureRunResult = Annotated[
    Procedure | ValidationError | ScopeError | NotFoundError,
    strawberry.union("RecordProcedureRunResult"),
]
