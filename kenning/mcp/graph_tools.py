"""Tools over the knowledge graph: look an entity up (with its edges, now or as of a time),
find one by what you know of it, explore around it, correct its properties, and end an edge
that no longer holds.

Each calls the domain entry its GraphQL resolver calls: ``get_node`` that of ``node``
(``kenning.domain.graph.node_read``), ``find_nodes`` and ``get_neighbors`` those of
``findNodes`` and ``neighbors`` (``kenning.domain.graph.reads``; resolvers in
``kenning/resolvers/graph/``), ``retract_edge`` that of ``retractEdge``
(``kenning.domain.graph.edges``) and ``update_node`` that of ``updateNode``
(``kenning.domain.graph.node_update``; ``kenning/resolvers/memory/node_history.py``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.graph.edges import EdgeAsk, retract
from kenning.domain.graph.find import NodeMatch
from kenning.domain.graph.model import Direction
from kenning.domain.graph.node_read import NodeAsk, node_card
from kenning.domain.graph.node_update import NodeEdit, edit_node
from kenning.domain.graph.reads import FindAsk, NeighborsAsk, found_nodes, neighbors_of
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    time_argument,
    to_scope,
)
from kenning.mcp.graph_arguments import (
    AsOf,
    History,
    ObservedSince,
    PropertiesToSet,
    PropertiesToUnset,
)
from kenning.mcp.memory_arguments import Reason
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def get_node_tool(
    ctx: ToolContext,
    key: Annotated[str, Field(description="The node's key, 'type:id', e.g. 'task:T-1'.")],
    scope: NarrowScope = None,
    as_of: AsOf = None,
    include_history: History = False,
    edge_limit: Annotated[int, Field(description="At most this many edges, 1..500.")] = 50,
) -> dict[str, Any]:
    """The node with this key as the caller sees it, and its edges valid now (or ``as_of``);
    ``node`` is null when none is visible."""
    who = caller(ctx)
    ask = NodeAsk(key, time_argument(as_of, "as_of"), to_scope(scope))
    ports = who.runtime.graph_ports()
    card = await node_card(who.scoped, ask, ports, history=include_history, edge_limit=edge_limit)
    answer = {"node": plain(card.node), "edges": plain(card.edges)}
    if card.history is not None:
        answer["history"] = plain(card.history)
    return answer


def _match(m: NodeMatch) -> dict[str, Any]:
    return {
        "key": m.node.key,
        "type": m.node.type,
        "label": m.label,
        "score": m.score,
        "exact": m.exact,
        "matchedOn": m.matched_on.value,
        "node": plain(m.node),
    }


@domain_errors
async def find_nodes_tool(
    ctx: ToolContext,
    query: Annotated[str, Field(description="A name, part of a key or words about it.")],
    types: Annotated[
        list[str] | None, Field(description="Only these node types, e.g. ['service'].")
    ] = None,
    limit: Annotated[int, Field(description="How many nodes at most, 1..100.")] = 20,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """The visible nodes best matching ``query``, best first (as ``findNodes``)."""
    who = caller(ctx)
    ask = FindAsk(query, types, limit, to_scope(scope))
    found = (await found_nodes(who.scoped, ask, who.runtime.graph_ports())).found
    return {"matches": [_match(m) for m in found]}


@domain_errors
async def get_neighbors_tool(
    ctx: ToolContext,
    key: Annotated[str, Field(description="The start node's key, 'type:id'.")],
    depth: Annotated[int, Field(description="How many hops, 1..3.")] = 1,
    direction: Annotated[Direction, Field(description="OUT, IN or BOTH edges.")] = Direction.BOTH,
    edge_types: Annotated[
        list[str] | None, Field(description="Only these relations (omit: all).")
    ] = None,
    limit: Annotated[int, Field(description="At most this many nodes and edges.")] = 100,
    scope: NarrowScope = None,
    as_of: AsOf = None,
) -> dict[str, Any]:
    """The subgraph within ``depth`` hops, of the edges valid now (or ``as_of``); empty when
    the node is not visible."""
    who = caller(ctx)
    when = time_argument(as_of, "as_of")
    ask = NeighborsAsk(key, depth, direction, edge_types, limit, when, to_scope(scope))
    found = (await neighbors_of(who.scoped, ask, who.runtime.graph_ports())).found
    return {"nodes": plain(found.nodes), "edges": plain(found.edges), "truncated": found.truncated}


@domain_errors
async def retract_edge_tool(
    ctx: ToolContext,
    from_key: Annotated[str, Field(description="The edge's start, 'type:id'.")],
    edge_type: Annotated[str, Field(description="The relation, e.g. 'database'.")],
    to_key: Annotated[str, Field(description="The edge's end, 'type:id'.")],
    scope: NarrowScope = None,
    reason: Reason = None,
) -> dict[str, Any]:
    """End an edge now (RETRACTED, by your key), as ``retractEdge``; it stays in history."""
    who = caller(ctx)
    ask = EdgeAsk(from_key, edge_type, to_key, to_scope(scope), reason)
    return {"retracted": await retract(who.scoped, ask, who.runtime.edge_ports())}


@domain_errors
async def update_node_tool(
    ctx: ToolContext,
    key: Annotated[str, Field(description="The node's key, 'type:id'.")],
    set: PropertiesToSet = None,
    unset: PropertiesToUnset = None,
    reason: Reason = None,
    observed_at: ObservedSince = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Correct a node's properties at your scope, as ``updateNode``; the values it replaces
    stay in its history (``get_history`` kind ``node``)."""
    who = caller(ctx)
    since = time_argument(observed_at, "observed_at")
    edit = NodeEdit(key, set, unset, reason, since, to_scope(scope))
    edited = await edit_node(who.scoped, edit, who.runtime.node_edit_ports())
    return {"node": plain(edited.node), "changed": plain(edited.changes)}


TOOLS = (
    ToolSpec(
        "get_node",
        get_node_tool,
        "Look up one entity of the knowledge graph by its key ('type:id', e.g. 'user:alice', "
        "'service:billing'; aliases are resolved): its type, properties and edges valid now "
        "(or as_of a past time; include_history adds the ended ones), or null.",
        read_only=True,
    ),
    ToolSpec(
        "find_nodes",
        find_nodes_tool,
        "Find entities of the knowledge graph when you do not know their exact key: by a "
        "name, part of a key, a misspelling or words of their description ('billing svc', "
        "'Alice'). Exact keys and names come first, then by similarity; each match has its "
        "key (for get_node and get_neighbors), type, label and score.",
        read_only=True,
    ),
    ToolSpec(
        "get_neighbors",
        get_neighbors_tool,
        "Explore the knowledge graph around an entity: the nodes and relationships within "
        "depth hops of its key, optionally only some relation types or directions. Each edge "
        "has its type, ends, evidence chunk ids and validity; as_of answers as the graph was.",
        read_only=True,
    ),
    ToolSpec(
        "update_node",
        update_node_tool,
        "Correct what the knowledge graph says about an entity: set properties (e.g. a new "
        "owner) and unset ones that no longer hold, at your scope, with a reason if you can. "
        "Nothing is lost: the old values stay in the node's history (get_history kind "
        "'node'), and the correction is in the change log. A key with no node at your scope "
        "is NOT_FOUND.",
        read_only=False,
    ),
    ToolSpec(
        "retract_edge",
        retract_edge_tool,
        "Say that a relationship no longer holds (e.g. a service stopped using a database): "
        "the edge ends now, reason RETRACTED, by your key. Nothing is deleted: the edge and "
        "its evidence stay in its history, and it is no longer stated as current. "
        "retracted is false when no such edge held.",
        read_only=False,
    ),
)
