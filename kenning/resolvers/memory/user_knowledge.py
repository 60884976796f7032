"""Resolvers of user knowledge: `storeKnowledge` and the `userContext` prefetch."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.memory.user_knowledge import (
    DEFAULT_PER_CATEGORY,
    KnowledgeCategory,
    KnowledgeEntry,
    KnowledgeItem,
    store_knowledge,
    user_context,
)
from kenning.resolvers.access.scope import read_scope, stored_write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.ingestion.ingest import INGEST_PRIORITY
from kenning.schema.access.scope import NarrowScope, ScopeInput, scope_info
from kenning.schema.memory import user_knowledge as gql


def to_item(item: KnowledgeItem) -> gql.UserKnowledgeItem:
    """The GraphQL form of one item."""
    return gql.UserKnowledgeItem(
        subject=item.subject,
        content=item.content,
        updated_at=item.updated_at,
        scope=scope_info(item.scope),
    )


@error_members
async def resolve_store_knowledge(
    info: Info,
    subject: str,
    content: str,
    category: KnowledgeCategory,
    scope: Annotated[
        ScopeInput | None,
        strawberry.argument(description="Defaults to the key's scope; may only narrow it."),
    ] = None,
) -> gql.StoreKnowledgeResult:
    """Store what is known about the user now (an agent waits on it: interactive priority)."""
    entry = KnowledgeEntry(
        subject=subject,
        content=content,
        category=category,
        scope=await stored_write_scope(info, scope),
    )
    stored = await store_knowledge(entry, info.context.runtime.ingest_deps(), INGEST_PRIORITY)
    return gql.StoreKnowledgeSuccess(
        source_urn=stored.source_urn,
        kind=stored.kind,
        category=category,
        subject=subject.strip(),
        status=stored.outcome.status,
        content_hash=stored.outcome.content_hash,
    )


async def resolve_user_context(
    info: Info,
    scope: NarrowScope = None,
    limit_per_category: Annotated[
        int,
        strawberry.argument(description="The most recently updated items kept per category."),
    ] = DEFAULT_PER_CATEGORY,
) -> gql.UserContext:
    """Every category's items the caller may see, and their Markdown; embeds nothing."""
    reader = read_scope(info, scope)
    found = await user_context(reader, info.context.runtime.user_knowledge, limit_per_category)
    return gql.UserContext(
        categories=[
            gql.UserKnowledgeCategory(
                category=group.category, items=[to_item(item) for item in group.items]
            )
            for group in found.categories
        ],
        markdown=found.markdown,
    )
