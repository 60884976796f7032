"""Resolvers of a node's past: `updateNode` and `nodeHistory`.

Keys are parsed and resolved through the client's aliases as the graph queries do
(``kenning/resolvers/graph/queries.py``), then handed to the use cases of
``kenning.domain.memory.node_history``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.memory.node_history import PropertyVersion, node_history, update_node
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.resolvers.access.scope import principal, read_scope, stored_write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.graph.queries import alias_resolved
from kenning.resolvers.memory.user_knowledge import ReasonArgument
from kenning.schema.access.scope import NarrowScope, ScopeInput, scope_info
from kenning.schema.graph.types import Node
from kenning.schema.memory import node_history as gql


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
    set_: Annotated[
        JSON | None,
        strawberry.argument(
            name="set",
            description="Properties to set: a JSON object of names to strings, numbers, "
            "booleans or lists of them.",
        ),
    ] = None,
    unset: Annotated[
        list[str] | None,
        strawberry.argument(description="Properties to remove; their values stay in history."),
    ] = None,
    reason: ReasonArgument = None,
    observed_at: Annotated[
        datetime | None,
        strawberry.argument(description="Since when the new values hold (default: now)."),
    ] = None,
    scope: Annotated[
        ScopeInput | None,
        strawberry.argument(description="The vertex to correct: the key's own scope by default."),
    ] = None,
) -> gql.UpdateNodeResult:
    """Correct a node's properties at the caller's scope; what they held stays in history."""
    target = await stored_write_scope(info, scope)
    [canonical] = await alias_resolved(info, target, [parse_key(key).key])
    runtime = info.context.runtime
    updated = await update_node(
        principal(info),
        target,
        canonical,
        set_,
        unset,
        runtime.node_history,
        runtime.settings.secret_policy,
        reason=reason,
        observed_at=observed_at,
    )
    reader = read_scope(info, scope)
    view = (await runtime.graph.nodes(reader, [canonical])).get(canonical)
    return gql.UpdateNodeSuccess(
        node=None if view is None else Node.from_view(view, reader),
        changed=[
            gql.PropertyChange(name=c.name, old=JSON(c.old), new=JSON(c.new))
            for c in updated.changes
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
