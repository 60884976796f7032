"""The ``allNodes`` resolver: its arguments into ``kenning.domain.graph.node_list``'s request,
the page into GraphQL's ``NodePage``."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.graph.node_list import DEFAULT_PAGE, NodesRead, list_nodes
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.node_list import NodePage
from kenning.schema.graph.types import Node

Types = Annotated[
    list[str] | None, strawberry.argument(description="Only nodes of these types (at most 32).")
]


async def resolve_all_nodes(
    info: Info,
    types: Types = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> NodePage:
    """One page of the nodes the caller may see, by key, without a search text."""
    asked = NodesRead(types, first, after, to_scope(scope))
    page = await list_nodes(caller(info), asked, info.context.runtime.node_list_ports())
    nodes = [Node.from_view(view, page.reader) for view in page.nodes]
    return NodePage(nodes=nodes, end_cursor=page.end_cursor, has_next_page=page.has_next_page)
