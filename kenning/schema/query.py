"""The root Query type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.graph import resolve_neighbors, resolve_node, resolve_nodes, resolve_path
from kenning.resolvers.health import resolve_health
from kenning.resolvers.knowledge_admin import resolve_aliases
from kenning.schema.health import Health


@strawberry.type
class Query:
    health: Health = strawberry.field(
        resolver=resolve_health, description="Versions of every part Kenning runs on."
    )
    aliases = strawberry.field(
        resolver=resolve_aliases, description="A client's aliases, most recently seen first."
    )
    node = strawberry.field(
        resolver=resolve_node,
        description="A node by key (normalized, alias-resolved); null when none is visible.",
    )
    nodes = strawberry.field(
        resolver=resolve_nodes,
        description="Nodes by key, in the order asked (at most 1000); null where not visible.",
    )
    neighbors = strawberry.field(
        resolver=resolve_neighbors,
        description="The subgraph within `depth` (1-3) hops of a node, cut at `limit`.",
    )
    path = strawberry.field(
        resolver=resolve_path,
        description="One shortest path of at most `maxDepth` (1-6) edges; null when none.",
    )
