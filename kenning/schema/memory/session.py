"""Types of session memory: an entry, what appending one returns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.session import SessionSource
from kenning.schema.errors import ScopeError, SensitiveContentError, ValidationError
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


@strawberry.type(description="The entry is stored and visible at once.")
class AppendSessionEntrySuccess:
    entry: SessionEntry
    promotion: IngestionHandle | None = strawberry.field(
        description="The queued ingestion of a promoted entry; null when not promoted."
    )


AppendSessionEntryResult = Annotated[
    AppendSessionEntrySuccess | ValidationError | SensitiveContentError | ScopeError,
    strawberry.union("AppendSessionEntryResult"),
]
