"""Resolvers of user knowledge's past: `forgetKnowledge` and `knowledgeHistory`.

Each turns its arguments into the request of its use case
(``kenning.domain.memory.knowledge_request``: ``forget_for`` and ``history_for``, which MCP's
``forget_knowledge`` and ``get_history`` of kind ``knowledge`` call too) and its answer into
GraphQL types.
"""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.memory.knowledge_request import ItemRequest, forget_for, history_for
from kenning.domain.memory.knowledge_versions import KnowledgeVersion
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope, ScopeInput, scope_info
from kenning.schema.memory import knowledge_history as gql
from kenning.schema.memory.arguments import ReasonArgument, UserKeyArgument

StoredScopeArgument = Annotated[
    ScopeInput | None,
    strawberry.argument(description="Where it was stored: defaults to the key's scope."),
]


def to_version(found: KnowledgeVersion) -> gql.KnowledgeVersion:
    """The GraphQL form of one version."""
    return gql.KnowledgeVersion(
        category=found.item.category,
        subject=found.subject,
        content=found.content,
        version=found.version,
        user_key=found.item.user_key,
        agent_id=found.agent_id,
        created_by=found.created_by,
        created_at=found.created_at,
        superseded_at=found.superseded_at,
        deleted_at=found.deleted_at,
        scope=scope_info(found.item.scope),
    )


@error_members
async def resolve_forget_knowledge(
    info: Info,
    category: KnowledgeCategory,
    subject: str,
    user_key: UserKeyArgument = None,
    reason: ReasonArgument = None,
    scope: StoredScopeArgument = None,
) -> gql.ForgetKnowledgeResult:
    """Forget an item at once everywhere it is read; its history stays."""
    request = ItemRequest(category, subject, user_key, to_scope(scope), reason)
    forgotten = await forget_for(caller(info), request, info.context.runtime.knowledge_deps())
    return gql.ForgetKnowledgeSuccess(version=to_version(forgotten))


async def resolve_knowledge_history(
    info: Info,
    category: KnowledgeCategory,
    subject: str,
    user_key: UserKeyArgument = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.KnowledgeHistoryPage:
    """One page of an item's versions the caller may see, newest first, forgotten ones
    included."""
    request = ItemRequest(category, subject, user_key, to_scope(scope), first=first, after=after)
    page = await history_for(caller(info), request, info.context.runtime.knowledge_versions)
    return gql.KnowledgeHistoryPage(
        nodes=[to_version(v) for v in page.nodes],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )
