"""Types of relations and edge timelines: ``defineRelation``, ``relations``,
``edgeHistory`` and ``retractEdge``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.ingestion.validity import Cardinality
from kenning.schema.access.scope import ScopeInfo
from kenning.schema.errors import ScopeError, SensitiveContentError, ValidationError
from kenning.schema.graph.enums import EndReason

strawberry.enum(
    Cardinality,
    description="ONE: a node holds one target of the relation at a time (a newer assertion "
    "ends the older edge, SUPERSEDED); MANY: every target holds until retracted.",
)


@strawberry.type(description="A client's declaration of a relation (edge type).")
class Relation:
    edge_type: str
    cardinality: Cardinality
    description: str
    defined_by: str = strawberry.field(description="The id of the key that declared it.")
    defined_at: datetime


@strawberry.type(
    description="The relation is declared; edgesEnded says how many current edges a ONE "
    "declaration ended (the newest target per node stays)."
)
class DefineRelationSuccess:
    relation: Relation
    edges_ended: int


@strawberry.type(description="One interval during which an edge held, at one scope.")
class EdgeInterval:
    from_key: str = strawberry.field(name="from")
    edge_type: str
    to_key: str = strawberry.field(name="to")
    scope: ScopeInfo
    valid_from: datetime
    valid_to: datetime | None = strawberry.field(description="Null while it holds.")
    recorded_at: datetime
    ended_at: datetime | None
    ended_reason: EndReason | None
    ended_by: str | None


@strawberry.type(
    description="Whether the edge was retracted: false when no such edge held at the scope "
    "(nothing changed). A retracted edge stays in edgeHistory."
)
class RetractEdgeSuccess:
    retracted: bool


DefineRelationResult = Annotated[
    DefineRelationSuccess | ValidationError | ScopeError, strawberry.union("DefineRelationResult")
]
RetractEdgeResult = Annotated[
    RetractEdgeSuccess | ValidationError | SensitiveContentError | ScopeError,
    strawberry.union("RetractEdgeResult"),
]
