"""Resolver of `changes`: the memory's audit trail, read as the items it is about are."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.changes import ChangeFilter, RecordedChange, change_page
from kenning.domain.memory.owners import user_key_of
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.memory.user_knowledge import UserKeyArgument
from kenning.schema.access.scope import NarrowScope, scope_info
from kenning.schema.memory import changes as gql


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
    key: Annotated[
        str | None,
        strawberry.argument(description="Only this item key (as Change.itemKey shows it)."),
    ] = None,
    item_id: Annotated[
        strawberry.ID | None, strawberry.argument(description="Only this item.")
    ] = None,
    user_key: UserKeyArgument = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.ChangePage:
    """Changes of the items the caller may see (the user's and the shared ones), newest
    first."""
    wanted = ChangeFilter(
        item_key=key,
        item_id=None if item_id is None else str(item_id),
        user_key=user_key_of(user_key),
    )
    page = await change_page(
        read_scope(info, scope), wanted, info.context.runtime.changes, first=first, after=after
    )
    return gql.ChangePage(
        nodes=[to_change(c) for c in page.nodes],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )
