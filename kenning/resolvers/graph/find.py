"""Resolver of ``findNodes``: nodes found by what a person types, scoped to the caller."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import strawberry

from kenning.domain.graph.find import find_nodes, find_query
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.graph.queries import alias_resolved
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
    reader = read_scope(info, scope)
    request = find_query(query, types, limit)
    if request.exact_key is not None:
        [canonical] = await alias_resolved(info, reader, [request.exact_key])
        request = replace(request, exact_key=canonical)
    runtime = info.context.runtime
    matches = await find_nodes(runtime.finder, runtime.graph, reader, request)
    # The nodes are read already: a selected `node { edges }` needs no second node read.
    info.context.loaders.nodes_by_key(reader).prime_many({m.node.key: m.node for m in matches})
    return FoundNodes(matches=[NodeMatch.from_view(match, reader) for match in matches])
