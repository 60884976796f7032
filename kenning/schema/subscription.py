"""The root Subscription type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.health import heartbeat
from kenning.resolvers.queue.subscriptions import ingestion_progress, queue_status
from kenning.resolvers.router import router_events


@strawberry.type
class Subscription:
    heartbeat = strawberry.subscription(
        resolver=heartbeat, description="Ticks `count` times, `intervalMs` apart."
    )
    queue_status = strawberry.subscription(
        resolver=queue_status,
        description="A snapshot of the visible queue, then an update after every change.",
    )
    ingestion_progress = strawberry.subscription(
        resolver=ingestion_progress,
        description=(
            "A job's changes until a terminal status, then complete; while it waits, "
            "also each new `position` in its lane."
        ),
    )
    router_events = strawberry.subscription(
        resolver=router_events,
        description="Model router events from now on: preemptions, set swaps, backend health.",
    )
