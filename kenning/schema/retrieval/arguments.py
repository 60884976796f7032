"""Arguments of the retrieval queries, with their descriptions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.schema.access.scope import ScopeInput

Filter = Annotated[
    list[str] | None, strawberry.argument(description="Any of these values (omit: no filter).")
]
MinScore = Annotated[float | None, strawberry.argument(description="Drop hits scoring below this.")]
SearchScope = Annotated[
    ScopeInput | None, strawberry.argument(description="Narrows the key's scope.")
]
SearchedUser = Annotated[
    str | None,
    strawberry.argument(
        description="The user searched for: their user knowledge is found, another "
        "user's never (none: only shared user knowledge)."
    ),
]
VectorWeight = Annotated[
    float | None,
    strawberry.argument(
        description="HYBRID only: the vector list's weight in 0..1, the keyword list's 1 minus "
        "it (omit: the server's weights)."
    ),
]


@strawberry.input(
    description="Narrows `search` further (any value within one filter, all filters together); "
    "each filter runs inside the ranking, so `limit` hits come back when that many pass."
)
class SearchFiltersInput:
    info_types: list[str] | None = strawberry.field(
        default=None, description="Chunks of any of these info types."
    )
    source_kinds: list[str] | None = strawberry.field(
        default=None, description="Chunks whose source is of any of these kinds."
    )
    connection_ids: list[str] | None = strawberry.field(
        default=None, description="Chunks that came through any of these connections."
    )
    entity_keys: list[str] | None = strawberry.field(
        default=None,
        description="Chunks that mention any of these nodes or state a relationship of one.",
    )
    created_after: datetime | None = strawberry.field(
        default=None, description="Chunks stored at or after this time (no zone: UTC)."
    )
    created_before: datetime | None = strawberry.field(
        default=None, description="Chunks stored before this time."
    )
    observed_after: datetime | None = strawberry.field(
        default=None, description="Chunks observed at or after this time."
    )
    observed_before: datetime | None = strawberry.field(
        default=None, description="Chunks observed before this time."
    )


SearchFilterArgument = Annotated[
    SearchFiltersInput | None,
    strawberry.argument(description="Filters by info type, source, connection, node and time."),
]
