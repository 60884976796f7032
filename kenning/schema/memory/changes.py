"""Types of the memory's audit trail: one change and a page of them."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.changes import ChangeAction, ItemKind
from kenning.schema.access.scope import ScopeInfo

strawberry.enum(ItemKind, name="ChangedItemKind", description="What kind of item changed.")
strawberry.enum(
    ChangeAction,
    description="What happened: a new version replaced the old (a node's properties were "
    "corrected), it was forgotten or deleted, or an edge was retracted.",
)


@strawberry.type(
    description="One change of a memory item, a node or an edge: who, when, what and why."
)
class Change:
    item_kind: ItemKind
    item_id: strawberry.ID = strawberry.field(
        description="The item: a procedure's or session entry's id, a knowledge item's "
        "sourceUrn, a node's key, an edge as from|edgeType|to."
    )
    item_key: str | None = strawberry.field(
        description="How it is named: CATEGORY:subject (normalized) for knowledge, the "
        "trigger for a procedure, the node's key (an edge's start node); null for a session "
        "entry."
    )
    action: ChangeAction
    old: JSON | None = strawberry.field(description="The item before; null when created.")
    new: JSON | None = strawberry.field(description="The item after; null when removed.")
    reason: str | None = strawberry.field(description="Why, as the caller said.")
    changed_by: str = strawberry.field(description="The id of the API key that changed it.")
    changed_at: datetime
    user_key: str | None = strawberry.field(description="Whose item; null when shared.")
    scope: ScopeInfo


@strawberry.type(description="Changes, newest first (first: 1..50, default 20).")
class ChangePage:
    nodes: list[Change]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for older changes; null on an empty page."
    )
    has_next_page: bool
