"""Types that describe the server itself."""

from __future__ import annotations

from datetime import datetime

import strawberry


@strawberry.type(description="Versions of every part Kenning runs on.")
class Health:
    postgres: str
    age: str | None
    pgvector: str | None
    redis: str
    kenning: str
    schema_revision: str | None


@strawberry.type(description="One tick of the heartbeat subscription.")
class Heartbeat:
    seq: int
    at: datetime
