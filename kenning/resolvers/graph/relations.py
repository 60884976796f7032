"""Resolvers of relations and edge timelines: declare a relation, list them, read an
edge's history, retract an edge (the last two through ``kenning.domain.graph.edges``, as MCP
``retract_edge`` does)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.graph.edges import EdgeAsk, edge_intervals, retract
from kenning.domain.ingestion import relations
from kenning.domain.ingestion.validity import Cardinality
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, principal, read_scope, to_scope, write_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope, ScopeInput, scope_info
from kenning.schema.graph import relations as gql
from kenning.schema.memory.arguments import ReasonArgument


def _relation(found: relations.Relation) -> gql.Relation:
    return gql.Relation(
        edge_type=found.edge_type,
        cardinality=found.cardinality,
        description=found.description,
        defined_by=found.defined_by,
        defined_at=found.defined_at,
    )


@error_members
async def resolve_define_relation(
    info: Info,
    edge_type: str,
    cardinality: Cardinality,
    description: str = "",
    scope: ScopeInput | None = None,
) -> gql.DefineRelationResult:
    """Declare how many targets a relation holds at a time, for the caller's client."""
    declared = await relations.define_relation(
        principal(info),
        write_scope(info, scope),
        edge_type,
        cardinality,
        description,
        info.context.runtime.relations,
    )
    return gql.DefineRelationSuccess(
        relation=_relation(declared.relation), edges_ended=declared.edges_ended
    )


async def resolve_relations(info: Info, scope: NarrowScope = None) -> list[gql.Relation]:
    """The relations the caller's client declared, by edge type."""
    reader = read_scope(info, scope)
    return [_relation(r) for r in await info.context.runtime.relations.relations(reader.client_id)]


def _interval(found: relations.IntervalView) -> gql.EdgeInterval:
    return gql.EdgeInterval(
        from_key=found.from_key,
        edge_type=found.edge_type,
        to_key=found.to_key,
        scope=scope_info(found.scope),
        valid_from=found.valid_from,
        valid_to=found.valid_to,
        recorded_at=found.recorded_at,
        ended_at=found.ended_at,
        ended_reason=found.ended_reason,
        ended_by=found.ended_by,
    )


async def resolve_edge_history(
    info: Info,
    from_key: Annotated[str, strawberry.argument(name="from")],
    edge_type: str,
    to: str | None = None,
    scope: NarrowScope = None,
) -> list[gql.EdgeInterval]:
    """Every interval of the edge (of every target when ``to`` is null), oldest first."""
    ask = EdgeAsk(from_key, edge_type, to, to_scope(scope))
    found = await edge_intervals(caller(info), ask, info.context.runtime.edge_ports())
    return [_interval(interval) for interval in found]


@error_members
async def resolve_retract_edge(
    info: Info,
    from_key: Annotated[str, strawberry.argument(name="from")],
    edge_type: str,
    to: str,
    scope: ScopeInput | None = None,
    reason: ReasonArgument = None,
) -> gql.RetractEdgeResult:
    """End an edge now (RETRACTED, by the caller's key); it stays in its history, and the
    change log records it (with ``reason``)."""
    ask = EdgeAsk(from_key, edge_type, to, to_scope(scope), reason)
    retracted = await retract(caller(info), ask, info.context.runtime.edge_ports())
    return gql.RetractEdgeSuccess(retracted=retracted)
