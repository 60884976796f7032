"""Types of session memory: an entry, what appending one returns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.session import SessionSource
from kenning.schema.errors import (
    ErasedSubject,
    NotFoundError,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.queue.types import IngestionHandle

strawberry.enum(SessionSource, description="Where a session entry came from.")


@strawberry.type(description="One entry of a client's project session.")
class SessionEntry:
    id: strawberry.ID
    source: SessionSource
    summary: str
    details: JSON = strawberry.field(description="The JSON object appended with the entry.")
    task_id: str | None
    promoted: bool = strawberry.field(description="Also queued for the knowledge base.")
    created_by: str = strawberry.field(description="The id of the API key that appended it.")
    created_at: datetime
    expires_at: datetime
    user_key: str | None = strawberry.field(description="Whose entry; null when shared.")
    agent_id: str | None = strawberry.field(description="The agent that wrote it.")


@strawberry.type(description="The entry is stored and visible at once.")
class AppendSessionEntrySuccess:
    entry: SessionEntry
    promotion: IngestionHandle | None = strawberry.field(
        description="The queued ingestion of a promoted entry; null when not promoted."
    )


AppendSessionEntryResult = Annotated[
    AppendSessionEntrySuccess
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | ErasedSubject,
    strawberry.union("AppendSessionEntryResult"),
]


@strawberry.type(description="The entry is gone from the session; the change log keeps it.")
class DeleteSessionEntrySuccess:
    entry: SessionEntry = strawberry.field(description="The entry as it was.")


DeleteSessionEntryResult = Annotated[
    DeleteSessionEntrySuccess | ValidationError | ScopeError | NotFoundError,
    strawberry.union("DeleteSessionEntryResult"),
]
