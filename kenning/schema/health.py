"""Types that describe the server itself."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry


@strawberry.enum(
    description="OK: every part works. DEGRADED: a part is down (Redis: no live "
    "updates across processes; the embedder: no ingest or vector search) but the "
    "API answers. DOWN: a part it cannot work without is down."
)
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


@strawberry.enum(description="Whether a model Kenning is set to use can answer.")
class ModelState(Enum):
    OK = "ok"
    UNREACHABLE = "unreachable"
    NOT_INSTALLED = "not installed"
    NOT_CONFIGURED = "not configured"


@strawberry.type(description="One purpose Kenning calls a model for, and whether it can.")
class ModelHealth:
    role: str = strawberry.field(description="structure, extract or vision.")
    model: str | None = strawberry.field(description="The model set for it; null when none.")
    state: ModelState
    detail: str = strawberry.field(
        description='"ok", or what is wrong and what to do: the backend\'s error, the model to '
        "pull, the setting to set."
    )


@strawberry.type(
    description="The state and versions of every part Kenning runs on; a part "
    "that is down has a null version and a `parts` entry that says why."
)
class Health:
    status: HealthStatus
    parts: list[PartHealth]
    postgres: str | None
    age: str | None
    pgvector: str | None
    redis: str | None
    kenning: str
    schema_revision: str | None
    models: list[ModelHealth] = strawberry.field(
        description="Each model Kenning is set to use (structure, extract, vision), asked at "
        "most every 10 s; a model that cannot answer leaves the status as it is."
    )


@strawberry.type(description="One tick of the heartbeat subscription.")
class Heartbeat:
    seq: int
    at: datetime
