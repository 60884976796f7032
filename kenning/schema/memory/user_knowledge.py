"""Types of user knowledge: the `storeKnowledge` mutation and the `userContext` prefetch."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.memory import user_knowledge as domain
from kenning.domain.memory.knowledge_request import KnowledgeStored
from kenning.schema.access.scope import ScopeInfo, scope_info
from kenning.schema.errors import (
    ErasedSubject,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.memory.enums import KnowledgeCategory


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

    @classmethod
    def of(cls, stored: KnowledgeStored) -> StoreKnowledgeSuccess:
        """The GraphQL form of a stored fact."""
        return cls(
            source_urn=stored.source_urn,
            kind=stored.kind,
            category=stored.category,
            subject=stored.subject,
            status=stored.status,
            content_hash=stored.content_hash,
            user_key=stored.user_key,
        )


@strawberry.type(description="One thing known about the user.")
class UserKnowledgeItem:
    subject: str
    content: str
    updated_at: datetime
    scope: ScopeInfo
    user_key: str | None = strawberry.field(description="Whose item; null when shared.")
    agent_id: str | None = strawberry.field(description="The agent that learned it.")

    @classmethod
    def of(cls, item: domain.KnowledgeItem) -> UserKnowledgeItem:
        """The GraphQL form of one item."""
        return cls(
            subject=item.subject,
            content=item.content,
            updated_at=item.updated_at,
            scope=scope_info(item.scope),
            user_key=item.user_key,
            agent_id=item.agent_id,
        )


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

    @classmethod
    def of(cls, found: domain.UserContext) -> UserContext:
        """The GraphQL form of the user's context."""
        return cls(
            categories=[
                UserKnowledgeCategory(
                    category=group.category, items=[UserKnowledgeItem.of(i) for i in group.items]
                )
                for group in found.categories
            ],
            markdown=found.markdown,
        )


StoreKnowledgeResult = Annotated[
    StoreKnowledgeSuccess | ValidationError | SensitiveContentError | ScopeError | ErasedSubject,
    strawberry.union("StoreKnowledgeResult"),
]
