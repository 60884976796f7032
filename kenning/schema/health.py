"""Types that describe the server itself."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry


@strawberry.enum(description="OK: every part works. DEGRADED: a part is down (Redis: no live "
                 "updates across processes; the embedder: no ingest or vector search) but the "
                 "API answers. DOWN: a part it cannot work without is down.")  # fmt: skip
class HealthStatus(Enum):
    OK = "ok"
    DEGRADED = "degraded"
    DOWN = "down"


@strawberry.type(description="One part Kenning runs on.")
class PartHealth:
    name: str = strawberry.field(description="postgres, age, pgvector, redis, embedder or workers.")
    up: bool
    version: str | None
    detail: str = strawberry.field(
        description='"ok", or why the part is not working; a working part may add what to '
        'fix ("ok, but ...").'
    )


@strawberry.type(description="The state and versions of every part Kenning runs on; a part "
                 "that is down has a null version and a `parts` entry that says why.")  # fmt: skip
class Health:
    status: HealthStatus
    parts: list[PartHealth]
    postgres: str | None
    age: str | None
    pgvector: str | None
    redis: str | None
    kenning: str
    schema_revision: str | None


@strawberry.type(description="One tick of the heartbeat subscription.")
class Heartbeat:
    seq: int
    at: datetime
