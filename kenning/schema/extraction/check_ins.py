"""Types of the `checkIns` query."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.extraction.check_ins import CheckInStatus as CheckInStatus
from kenning.schema.access.scope import ScopeInfo
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.extraction.errors import ModelAttempt

strawberry.enum(
    CheckInStatus,
    description="How a structuring call ended: LOADED, DRY_RUN (nothing loaded) or INVALID "
    "(the model's answer stayed invalid, or the load refused it).",
)


@strawberry.type(description="The audit record of one structureKnowledge call.")
class CheckIn:
    id: strawberry.ID
    status: CheckInStatus
    caller: str = strawberry.field(description="The id of the API key that called.")
    scope: ScopeInfo
    source_urn: str | None = strawberry.field(description="What it was loaded as, if loaded.")
    input_text: str | None = strawberry.field(
        description="The text the model saw (after redaction); null when the server keeps "
        "only its hash (KENNING_CHECK_IN_KEEP_TEXT=false)."
    )
    input_hash: str = strawberry.field(description="SHA-256 (hex) of that text.")
    hints: str | None
    output: JSON | None = strawberry.field(description="The validated knowledge file.")
    model: str
    prompt_version: str
    attempts: list[ModelAttempt]
    duration_ms: float
    created_at: datetime


@strawberry.type(description="Check-ins newest first; pass `endCursor` as `after`.")
class CheckInPage:
    nodes: list[CheckIn]
    end_cursor: str | None
    has_next_page: bool


CheckInsResult = Annotated[
    CheckInPage | ValidationError | ScopeError, strawberry.union("CheckInsResult")
]
