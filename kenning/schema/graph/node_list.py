"""The type of ``allNodes``: visible nodes by key, one page at a time."""

from __future__ import annotations

import strawberry

from kenning.schema.graph.types import Node


@strawberry.type(description="Nodes by key (first: 1..200, default 50), one page at a time.")
class NodePage:
    nodes: list[Node]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the next page; null on an empty page."
    )
    has_next_page: bool
