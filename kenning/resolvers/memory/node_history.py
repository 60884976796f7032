"""Resolvers of a node's past: `updateNode` and `nodeHistory`.

``updateNode`` calls ``kenning.domain.graph.node_update.edit_node``, as MCP ``update_node``
does. ``nodeHistory`` parses its key and resolves it through the client's aliases as the
graph queries do (``kenning/resolvers/graph/queries.py``), then reads the versions
(``kenning.domain.memory.node_history``).
"""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.graph.node_update import NodeEdit, edit_node
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.memory.node_history import PropertyVersion, node_history
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, read_scope, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.graph.queries import alias_resolved
from kenning.schema.access.scope import NarrowScope, scope_info
from kenning.schema.graph.arguments import (
    ObservedSince,
    PropertiesToSet,
    PropertiesToUnset,
    VertexScope,
)
from kenning.schema.graph.types import Node
from kenning.schema.memory import node_history as gql
from kenning.schema.memory.arguments import ReasonArgument


def to_version(found: PropertyVersion) -> gql.NodePropertyVersion:
    """The GraphQL form of one version."""
    return gql.NodePropertyVersion(
        key=found.node_key,
        name=found.name,
        value=JSON(found.value),
        source=found.source,
        changed_by=found.changed_by,
        observed_at=found.observed_at,
        recorded_at=found.recorded_at,
        ended_at=found.ended_at,
        ended_by=found.ended_by,
        scope=scope_info(found.scope),
    )


@error_members
async def resolve_update_node(
    info: Info,
    key: str,
    set_: PropertiesToSet = None,
    unset: PropertiesToUnset = None,
    reason: ReasonArgument = None,
    observed_at: ObservedSince = None,
    scope: VertexScope = None,
) -> gql.UpdateNodeResult:
    """Correct a node's properties at the caller's scope; what they held stays in history."""
    edit = NodeEdit(key, set_, unset, reason, observed_at, to_scope(scope))
    edited = await edit_node(caller(info), edit, info.context.runtime.node_edit_ports())
    node = edited.node
    return gql.UpdateNodeSuccess(
        node=None if node is None else Node.from_view(node, edited.reader),
        changed=[
            gql.PropertyChange(name=c.name, old=JSON(c.old), new=JSON(c.new))
            for c in edited.changes
        ],
    )


async def resolve_node_history(
    info: Info,
    key: str,
    name: Annotated[
        str | None, strawberry.argument(description="Only this property's versions.")
    ] = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.NodeHistoryPage:
    """One page of the versions of a node's properties the caller may see, newest first."""
    reader = read_scope(info, scope)
    [canonical] = await alias_resolved(info, reader, [parse_key(key).key])
    page = await node_history(
        reader, canonical, info.context.runtime.node_history, name=name, first=first, after=after
    )
    return gql.NodeHistoryPage(
        nodes=[to_version(v) for v in page.nodes],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )
