"""Resolvers of user knowledge: `storeKnowledge` and the `userContext` prefetch.

Each turns its arguments into the request of its use case
(``kenning.domain.memory.knowledge_request``: ``store_for``, ``context_of_user``, which MCP's
``store_knowledge`` and ``user_context`` call too) and its answer into GraphQL types.
"""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.memory.knowledge_request import (
    ContextRead,
    StoreRequest,
    context_of_user,
    store_for,
)
from kenning.domain.memory.user_knowledge import DEFAULT_PER_CATEGORY, KnowledgeCategory
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.memory import user_knowledge as gql
from kenning.schema.memory.arguments import (
    AgentIdArgument,
    ReasonArgument,
    UserKeyArgument,
    WriteScopeArgument,
)

PerCategoryArgument = Annotated[
    int, strawberry.argument(description="The most recently updated items kept per category.")
]
ContextUserArgument = Annotated[
    str | None,
    strawberry.argument(
        description="The user: their items and the shared ones (a user's item replaces "
        "the shared one of its subject); none: the shared ones only."
    ),
]


@error_members
async def resolve_store_knowledge(
    info: Info,
    subject: str,
    content: str,
    category: KnowledgeCategory,
    scope: WriteScopeArgument = None,
    user_key: UserKeyArgument = None,
    agent_id: AgentIdArgument = None,
    reason: ReasonArgument = None,
) -> gql.StoreKnowledgeResult:
    """Store what is known about the user now (an agent waits on it: interactive priority);
    the version it replaces stays in the history."""
    request = StoreRequest(subject, content, category, to_scope(scope), user_key, agent_id, reason)
    stored = await store_for(caller(info), request, info.context.runtime.knowledge_deps())
    return gql.StoreKnowledgeSuccess.of(stored)


async def resolve_user_context(
    info: Info,
    scope: NarrowScope = None,
    limit_per_category: PerCategoryArgument = DEFAULT_PER_CATEGORY,
    user_key: ContextUserArgument = None,
) -> gql.UserContext:
    """Every category's items the caller may see for the user, and their Markdown; embeds
    nothing."""
    request = ContextRead(to_scope(scope), limit_per_category, user_key)
    found = await context_of_user(caller(info), request, info.context.runtime.user_knowledge)
    return gql.UserContext.of(found)
