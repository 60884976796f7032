"""Types of user knowledge's past: a version, a page of them, and what `forgetKnowledge`
returns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.schema.access.scope import ScopeInfo
from kenning.schema.errors import NotFoundError, ScopeError, SensitiveContentError, ValidationError
from kenning.schema.memory.enums import KnowledgeCategory


@strawberry.type(description="One version of a user-knowledge item.")
class KnowledgeVersion:
    category: KnowledgeCategory
    subject: str
    content: str = strawberry.field(description="What was indexed (credentials redacted).")
    version: int = strawberry.field(description="1 for the first version, then n+1.")
    user_key: str | None = strawberry.field(description="Whose item; null when shared.")
    agent_id: str | None = strawberry.field(description="The agent that learned it.")
    created_by: str = strawberry.field(description="The id of the API key that stored it.")
    created_at: datetime
    superseded_at: datetime | None = strawberry.field(
        description="When the next version replaced it; null for the current version."
    )
    deleted_at: datetime | None = strawberry.field(
        description="When forgetKnowledge removed it; null unless forgotten."
    )
    scope: ScopeInfo


@strawberry.type(description="Versions of one item, newest first (first: 1..50, default 20).")
class KnowledgeHistoryPage:
    nodes: list[KnowledgeVersion]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the older versions; null on an empty page."
    )
    has_next_page: bool


@strawberry.type(description="Forgotten: gone from userContext, agentContext and search.")
class ForgetKnowledgeSuccess:
    version: KnowledgeVersion = strawberry.field(
        description="The version forgotten, now with deletedAt; the history keeps it."
    )


ForgetKnowledgeResult = Annotated[
    ForgetKnowledgeSuccess | ValidationError | SensitiveContentError | ScopeError | NotFoundError,
    strawberry.union("ForgetKnowledgeResult"),
]
