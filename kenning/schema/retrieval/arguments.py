"""Arguments of the retrieval queries, with their descriptions."""

from __future__ import annotations

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
