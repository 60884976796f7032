"""The root Query type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.health import resolve_health
from kenning.resolvers.knowledge_admin import resolve_aliases
from kenning.schema.health import Health


@strawberry.type
class Query:
    health: Health = strawberry.field(
        resolver=resolve_health, description="Versions of every part Kenning runs on."
    )
    aliases = strawberry.field(
        resolver=resolve_aliases, description="A client's aliases, most recently seen first."
    )
