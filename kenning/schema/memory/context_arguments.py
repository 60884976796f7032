"""Arguments of ``agentContext``, with their descriptions (the types it answers with are
``kenning.schema.retrieval.evidence``'s; ``context_types`` builds them)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.retrieval.context_format import ContextFormat

EntityKeyArgument = Annotated[
    str | None, strawberry.argument(description="The user entity (same as userKey).")
]
ContextUserArgument = Annotated[
    str | None, strawberry.argument(description="The user entity: its profile.")
]
EntityKeysArgument = Annotated[
    list[str] | None, strawberry.argument(description="Other entities (at most 20).")
]
BudgetArgument = Annotated[
    int | None, strawberry.argument(description="Characters per section (rules exempt).")
]
AsOfArgument = Annotated[
    datetime | None,
    strawberry.argument(
        description="Answer as things were then: edges valid and pieces current at that "
        "time. A time to come answers as now."
    ),
]
IncludeHistoryArgument = Annotated[
    bool,
    strawberry.argument(
        description="Also list what no longer holds (ended edges, superseded pieces), "
        "each with its validity, in a `history` section. Never stated as current."
    ),
]
DepthArgument = Annotated[
    int,
    strawberry.argument(
        description="How many hops of graph around the user and the entities (1-3): each "
        "neighbour scores 1/hop, and the pieces its edge links join the search's."
    ),
]
KnowledgeTypesArgument = Annotated[
    list[str] | None,
    strawberry.argument(description="Search only pieces of these knowledge types."),
]
EntityPiecesArgument = Annotated[
    bool,
    strawberry.argument(
        description="Search only the pieces of the user and the entities: those whose graph "
        "references name one of them (the search's entityKeys filter)."
    ),
]
TagsArgument = Annotated[
    list[str] | None,
    strawberry.argument(description="Search only pieces carrying at least one of these tags."),
]


@strawberry.input(description="How agentContext's text reads (the design's formatter).")
class ContextFormatInput:
    section_delimiter: str = strawberry.field(
        default="\n\n", description="Between sections and blocks (1-20 characters)."
    )
    item_delimiter: str = strawberry.field(
        default="\n---\n", description="Between knowledge items (1-20 characters)."
    )
    include_tags: bool = strawberry.field(
        default=True, description="A `Tags:` line under each knowledge item that has tags."
    )
    include_scores: bool = strawberry.field(
        default=False, description="A `Score:` line under each knowledge item."
    )

    def to_domain(self) -> ContextFormat:
        """The formatter's options (a bad delimiter is a ValidationError naming it)."""
        return ContextFormat(
            self.section_delimiter, self.item_delimiter, self.include_tags, self.include_scores
        )


TextFormatArgument = Annotated[
    ContextFormatInput | None,
    strawberry.argument(description="How the text reads; default: the design's layout."),
]


def format_of(given: ContextFormatInput | None) -> ContextFormat | None:
    """The formatter's options the argument asks for (None: the defaults)."""
    return given.to_domain() if given is not None else None
