"""The root Subscription type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.health import heartbeat


@strawberry.type
class Subscription:
    heartbeat = strawberry.subscription(
        resolver=heartbeat, description="Ticks `count` times, `intervalMs` apart."
    )
