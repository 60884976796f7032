"""Types of a node's past: a property's version, a page of them, and what `updateNode`
returns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.schema.access.scope import ScopeInfo
from kenning.schema.errors import NotFoundError, ScopeError, SensitiveContentError, ValidationError
from kenning.schema.graph.types import Node


@strawberry.type(
    description="One value one property of a node held at one scope: what stated it, when it "
    "held, when Kenning learned it, and when and by what it was replaced or removed."
)
class NodePropertyVersion:
    key: str = strawberry.field(description="The node's key.")
    name: str = strawberry.field(description="The property.")
    value: JSON | None = strawberry.field(description="Its value then.")
    source: str | None = strawberry.field(
        description="The URN of the source that stated it (ingest, ingestGraph, "
        "loadKnowledge, files, crawls, code); null when a key set it with updateNode."
    )
    changed_by: str | None = strawberry.field(
        description="The id of the API key that set it with updateNode (migration-0028 for "
        "values that predate the history); null when a source stated it."
    )
    observed_at: datetime | None = strawberry.field(
        description="Since when it held, as its writer said (observedAt, else when it was "
        "recorded); null when not known."
    )
    recorded_at: datetime = strawberry.field(description="When Kenning learned it.")
    ended_at: datetime | None = strawberry.field(
        description="When a later value replaced it or it was removed; null while current."
    )
    ended_by: str | None = strawberry.field(
        description="What replaced or removed it: a source URN or an API key's id; null "
        "while current or when its node was deleted."
    )
    scope: ScopeInfo = strawberry.field(description="The scope of the vertex it belongs to.")


@strawberry.type(description="Versions of a node's properties, newest first (first: 1..50).")
class NodeHistoryPage:
    nodes: list[NodePropertyVersion]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the older versions; null on an empty page."
    )
    has_next_page: bool


@strawberry.type(description="One property a correction changed.")
class PropertyChange:
    name: str
    old: JSON | None = strawberry.field(description="Its value before; null when it had none.")
    new: JSON | None = strawberry.field(description="Its value now; null when it was unset.")


@strawberry.type(
    description="The node is corrected; the values it replaced stay in nodeHistory and the "
    "correction is in changes. changed is empty when nothing differed."
)
class UpdateNodeSuccess:
    node: Node | None = strawberry.field(
        description="The node as the caller reads it now (every scope it sees, merged)."
    )
    changed: list[PropertyChange]


UpdateNodeResult = Annotated[
    UpdateNodeSuccess | ValidationError | SensitiveContentError | ScopeError | NotFoundError,
    strawberry.union("UpdateNodeResult"),
]
