"""Types of ``findNodes``: ``NodeMatch`` (what a UI lists) and the result union."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.access.scope import Scope
from kenning.domain.graph.find import EXACT_SCORE, MatchedOn
from kenning.domain.graph.find import NodeMatch as NodeMatchView
from kenning.schema.access.scope import ScopeInfo, scope_info
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.graph.types import Node

strawberry.enum(
    MatchedOn,
    name="NodeMatchField",
    description="What the query matched best: KEY (the key or its id part), NAME (the name or "
    "label property) or TEXT (the description).",
)


@strawberry.type(
    description="A node found by `findNodes`: what a list shows (key, type, label, score, "
    "scope) and the full `node` to open."
)
class NodeMatch:
    key: str = strawberry.field(description="The canonical key, as `node(key:)` takes it.")
    type: str = strawberry.field(description="The node type (the key's namespace).")
    label: str = strawberry.field(
        description="What to show: the `name` property, else `label`, else the key's id part."
    )
    score: float = strawberry.field(
        description=f"{EXACT_SCORE} for an exact key or name; otherwise 0.8 x trigram "
        "similarity of the key's id part, name or label + 0.2 x word similarity in the "
        "description, below 1. Comparable within one answer, not across queries."
    )
    exact: bool = strawberry.field(
        description="The query is the node's key, its key's id part, its name or its label."
    )
    matched_on: MatchedOn = strawberry.field(description="Which part matched best.")
    scope: ScopeInfo = strawberry.field(description="The scope of the winning vertex.")
    node: Node = strawberry.field(description="The node itself (properties, edges, chunks).")

    @classmethod
    def from_view(cls, match: NodeMatchView, reader: Scope) -> NodeMatch:
        """The GraphQL form of a match read by ``reader``."""
        return cls(
            key=match.node.key,
            type=match.node.type,
            label=match.label,
            score=match.score,
            exact=match.exact,
            matched_on=match.matched_on,
            scope=scope_info(match.node.scope),
            node=Node.from_view(match.node, reader),
        )


@strawberry.type(description="The matching nodes, best first: exact key, exact name, then score.")
class FoundNodes:
    matches: list[NodeMatch]


FindNodesResult = Annotated[
    FoundNodes | ValidationError | ScopeError, strawberry.union("FindNodesResult")
]
