"""Resolvers of relations and edge timelines: declare a relation, list them, read an
edge's history, retract an edge."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.ingestion import relations
from kenning.domain.ingestion.validity import Cardinality
from kenning.resolvers.access.scope import principal, read_scope, stored_write_scope, write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.graph.queries import alias_resolved
from kenning.resolvers.memory.user_knowledge import ReasonArgument
from kenning.schema.access.scope import NarrowScope, ScopeInput, scope_info
from kenning.schema.graph import relations as gql


def _relation(found: relations.Relation) -> gql.Relation:
    return gql.Relation(
        edge_type=found.edge_type, cardinality=found.cardinality,
        description=found.description, defined_by=found.defined_by,
        defined_at=found.defined_at,
    )  # fmt: skip


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
        principal(info), write_scope(info, scope), edge_type, cardinality, description,
        info.context.runtime.relations,
    )  # fmt: skip
    return gql.DefineRelationSuccess(
        relation=_relation(declared.relation), edges_ended=declared.edges_ended
    )


async def resolve_relations(info: Info, scope: NarrowScope = None) -> list[gql.Relation]:
    """The relations the caller's client declared, by edge type."""
    reader = read_scope(info, scope)
    return [_relation(r) for r in await info.context.runtime.relations.relations(reader.client_id)]


async def _canonical(
    info: Info, reader_client: str, keys: tuple[str, str, str | None]
) -> tuple[str, str, str | None]:
    source, kind, end = keys
    named = [source] if end is None else [source, end]
    resolved = await alias_resolved(info, read_scope(info), named) if reader_client else named
    return resolved[0], kind, (resolved[1] if end is not None else None)


async def resolve_edge_history(
    info: Info,
    from_key: Annotated[str, strawberry.argument(name="from")],
    edge_type: str,
    to: str | None = None,
    scope: NarrowScope = None,
) -> list[gql.EdgeInterval]:
    """Every interval of the edge (of every target when ``to`` is null), oldest first."""
    reader = read_scope(info, scope)
    keys = await _canonical(info, reader.client_id, relations.edge_keys(from_key, edge_type, to))
    found = await relations.edge_history(reader, keys, info.context.runtime.relations)
    return [
        gql.EdgeInterval(
            from_key=i.from_key,
            edge_type=i.edge_type,
            to_key=i.to_key,
            scope=scope_info(i.scope),
            valid_from=i.valid_from,
            valid_to=i.valid_to,
            recorded_at=i.recorded_at,
            ended_at=i.ended_at,
            ended_reason=i.ended_reason,
            ended_by=i.ended_by,
        )
        for i in found
    ]


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
    target = await stored_write_scope(info, scope)
    source, kind, end = await _canonical(
        info, target.client_id, relations.edge_keys(from_key, edge_type, to)
    )
    assert end is not None
    retracted = await relations.retract_edge(
        principal(info), target, (source, kind, end), info.context.runtime.relations, reason
    )
    return gql.RetractEdgeSuccess(retracted=retracted)
