"""Resolver of `changes`: the memory's audit trail, read as the items it is about are,
through its use case (``kenning.domain.memory.changes.changes_for``)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.changes import ChangesRequest, RecordedChange, changes_for
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.schema.access.scope import NarrowScope, scope_info
from kenning.schema.memory import changes as gql
from kenning.schema.memory.arguments import UserKeyArgument

KeyArgument = Annotated[
    str | None,
    strawberry.argument(description="Only this item key (as Change.itemKey shows it)."),
]
ItemIdArgument = Annotated[strawberry.ID | None, strawberry.argument(description="Only this item.")]


def to_change(found: RecordedChange) -> gql.Change:
    """The GraphQL form of one recorded change."""
    change = found.change
    return gql.Change(
        item_kind=change.kind,
        item_id=strawberry.ID(change.item_id),
        item_key=change.item_key,
        action=change.action,
        old=None if change.old is None else JSON(dict(change.old)),
        new=None if change.new is None else JSON(dict(change.new)),
        reason=change.reason,
        changed_by=change.changed_by,
        changed_at=found.changed_at,
        user_key=change.user_key,
        scope=scope_info(change.scope),
    )


async def resolve_changes(
    info: Info,
    key: KeyArgument = None,
    item_id: ItemIdArgument = None,
    user_key: UserKeyArgument = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.ChangePage:
    """Changes of the items the caller may see (the user's and the shared ones), newest
    first."""
    item = None if item_id is None else str(item_id)
    request = ChangesRequest(key, item, user_key, first, after, to_scope(scope))
    page = await changes_for(caller(info), request, info.context.runtime.changes)
    return gql.ChangePage(
        nodes=[to_change(c) for c in page.nodes],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )
