"""Arguments of ``agentContext``, with their descriptions (the types it answers with are
``kenning.schema.retrieval.evidence``'s; ``context_types`` builds them)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

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
