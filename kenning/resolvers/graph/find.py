"""Resolver of ``findNodes``: nodes found by what a person types, scoped to the caller, by
``kenning.domain.graph.reads.found_nodes`` (as MCP ``find_nodes``)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.graph.reads import FindAsk, found_nodes
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.find import FindNodesResult, FoundNodes, NodeMatch


@error_members
async def resolve_find_nodes(
    info: Info,
    query: Annotated[
        str, strawberry.argument(description="What the person knows: a name, key, phrase.")
    ],
    types: Annotated[
        list[str] | None, strawberry.argument(description="Only nodes of these types.")
    ] = None,
    limit: Annotated[int, strawberry.argument(description="1 to 100 matches.")] = 20,
    scope: NarrowScope = None,
) -> FindNodesResult:
    """The visible nodes best matching ``query``; bad input as a union member."""
    ask = FindAsk(query, types, limit, to_scope(scope))
    read = await found_nodes(caller(info), ask, info.context.runtime.graph_ports())
    # The nodes are read already: a selected `node { edges }` needs no second node read.
    info.context.loaders.nodes_by_key(read.reader).prime_many(
        {m.node.key: m.node for m in read.found}
    )
    return FoundNodes(matches=[NodeMatch.from_view(match, read.reader) for match in read.found])
