"""Resolvers of user knowledge: `storeKnowledge` and the `userContext` prefetch."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.memory.knowledge_versions import store_with_history
from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.user_knowledge import (
    DEFAULT_PER_CATEGORY,
    KnowledgeCategory,
    KnowledgeEntry,
    KnowledgeItem,
    user_context,
)
from kenning.domain.priorities import INGEST_PRIORITY
from kenning.resolvers.access.scope import principal, read_scope, stored_write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope, ScopeInput, scope_info
from kenning.schema.memory import user_knowledge as gql


def to_item(item: KnowledgeItem) -> gql.UserKnowledgeItem:
    """The GraphQL form of one item."""
    return gql.UserKnowledgeItem(
        subject=item.subject,
        content=item.content,
        updated_at=item.updated_at,
        scope=scope_info(item.scope),
        user_key=item.user_key,
        agent_id=item.agent_id,
    )


UserKeyArgument = Annotated[
    str | None,
    strawberry.argument(
        description="The user the memory belongs to, as a node key (user:alice); "
        "none: shared by everyone of the scope."
    ),
]
AgentIdArgument = Annotated[
    str | None, strawberry.argument(description="The agent that learned it.")
]
ReasonArgument = Annotated[
    str | None,
    strawberry.argument(description="Why, kept in the change log (at most 1,000 characters)."),
]


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
    user_key: UserKeyArgument = None,
    agent_id: AgentIdArgument = None,
    reason: ReasonArgument = None,
) -> gql.StoreKnowledgeResult:
    """Store what is known about the user now (an agent waits on it: interactive priority);
    the version it replaces stays in the history."""
    owner = owner_of(user_key, agent_id)
    entry = KnowledgeEntry(
        subject=subject,
        content=content,
        category=category,
        scope=await stored_write_scope(info, scope),
        owner=owner,
    )
    runtime = info.context.runtime
    stored = await store_with_history(
        entry, runtime.knowledge_deps(), INGEST_PRIORITY, principal(info).key_id, reason
    )
    return gql.StoreKnowledgeSuccess(
        source_urn=stored.source_urn,
        kind=stored.kind,
        category=category,
        subject=subject.strip(),
        status=stored.outcome.status,
        content_hash=stored.outcome.content_hash,
        user_key=owner.user_key,
    )


async def resolve_user_context(
    info: Info,
    scope: NarrowScope = None,
    limit_per_category: Annotated[
        int,
        strawberry.argument(description="The most recently updated items kept per category."),
    ] = DEFAULT_PER_CATEGORY,
    user_key: Annotated[
        str | None,
        strawberry.argument(
            description="The user: their items and the shared ones (a user's item replaces "
            "the shared one of its subject); none: the shared ones only."
        ),
    ] = None,
) -> gql.UserContext:
    """Every category's items the caller may see for the user, and their Markdown; embeds
    nothing."""
    reader = read_scope(info, scope)
    found = await user_context(
        reader, info.context.runtime.user_knowledge, limit_per_category, user_key_of(user_key)
    )
    return gql.UserContext(
        categories=[
            gql.UserKnowledgeCategory(
                category=group.category, items=[to_item(item) for item in group.items]
            )
            for group in found.categories
        ],
        markdown=found.markdown,
    )
