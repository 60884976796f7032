"""Arguments the memory operations share, with their descriptions: whose memory
(``userKey``), which agent (``agentId``), why a change is made (``reason``) and where a
write goes (``scope``)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.schema.access.scope import ScopeInput

UserKeyArgument = Annotated[
    str | None,
    strawberry.argument(
        description="The user the memory belongs to, as a node key (user:alice); "
        "none: shared by everyone of the scope."
    ),
]
AgentIdArgument = Annotated[
    str | None, strawberry.argument(description="The agent that learned it.")
]
ReasonArgument = Annotated[
    str | None,
    strawberry.argument(description="Why, kept in the change log (at most 1,000 characters)."),
]
WriteScopeArgument = Annotated[
    ScopeInput | None,
    strawberry.argument(description="Defaults to the key's scope; may only narrow it."),
]
