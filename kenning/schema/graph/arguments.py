"""Arguments of the graph mutations, with their descriptions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.schema.access.scope import ScopeInput

PropertiesToSet = Annotated[
    JSON | None,
    strawberry.argument(
        name="set",
        description="Properties to set: a JSON object of names to strings, numbers, "
        "booleans or lists of them.",
    ),
]
PropertiesToUnset = Annotated[
    list[str] | None,
    strawberry.argument(description="Properties to remove; their values stay in history."),
]
ObservedSince = Annotated[
    datetime | None,
    strawberry.argument(description="Since when the new values hold (default: now)."),
]
VertexScope = Annotated[
    ScopeInput | None,
    strawberry.argument(description="The vertex to correct: the key's own scope by default."),
]
