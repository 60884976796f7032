"""Types of user knowledge: the `storeKnowledge` mutation and the `userContext` prefetch."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.schema.access.scope import ScopeInfo
from kenning.schema.errors import (
    ErasedSubject,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)

strawberry.enum(KnowledgeCategory, description="What a piece of user knowledge is about.")


@strawberry.type(description="Stored: the same category and subject again replaces it.")
class StoreKnowledgeSuccess:
    source_urn: str = strawberry.field(description="Derived from the category and subject.")
    kind: str = strawberry.field(description="user_knowledge_<category>, lower case.")
    category: KnowledgeCategory
    subject: str
    status: IngestStatus = strawberry.field(
        description="SKIPPED_DUPLICATE when the same content was stored already."
    )
    content_hash: str
    user_key: str | None = strawberry.field(description="Whose item; null when shared.")


@strawberry.type(description="One thing known about the user.")
class UserKnowledgeItem:
    subject: str
    content: str
    updated_at: datetime
    scope: ScopeInfo
    user_key: str | None = strawberry.field(description="Whose item; null when shared.")
    agent_id: str | None = strawberry.field(description="The agent that learned it.")


@strawberry.type(description="One category's items, by subject.")
class UserKnowledgeCategory:
    category: KnowledgeCategory
    items: list[UserKnowledgeItem]


@strawberry.type(description="Everything known about the user, read without any embedding.")
class UserContext:
    categories: list[UserKnowledgeCategory] = strawberry.field(
        description="Every category, in a fixed order, empty ones included."
    )
    markdown: str = strawberry.field(
        description='A "## " header per category with items, a bullet per item; "" when none.'
    )


StoreKnowledgeResult = Annotated[
    StoreKnowledgeSuccess | ValidationError | SensitiveContentError | ScopeError | ErasedSubject,
    strawberry.union("StoreKnowledgeResult"),
]
