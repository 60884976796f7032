"""Resolvers for the server's own state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from datetime import UTC, datetime

from kenning import __version__
from kenning.domain.errors import ValidationError
from kenning.resolvers.context import Info
from kenning.schema.health import Health, Heartbeat
from kenning.storage.health import database_versions, redis_version

MAX_HEARTBEATS = 1000


async def resolve_health(info: Info) -> Health:
    """Versions of PostgreSQL, AGE, pgvector, Redis, Kenning and the schema revision."""
    runtime = info.context.runtime
    async with runtime.pool.acquire() as conn:
        db = await database_versions(conn)
    return Health(
        postgres=db.postgres,
        age=db.age,
        pgvector=db.pgvector,
        redis=await redis_version(runtime.redis),
        kenning=__version__,
        schema_revision=db.schema_revision,
    )


async def heartbeat(count: int = 3, interval_ms: int = 1000) -> AsyncGenerator[Heartbeat, None]:
    """Yield ``count`` ticks ``interval_ms`` apart (a liveness check for websocket clients)."""
    if not 1 <= count <= MAX_HEARTBEATS:
        raise ValidationError(f"count must be 1..{MAX_HEARTBEATS}", field="count")
    if not 0 <= interval_ms <= 60_000:
        raise ValidationError("intervalMs must be 0..60000", field="intervalMs")
    for seq in range(1, count + 1):
        yield Heartbeat(seq=seq, at=datetime.now(UTC))
        if seq < count:
            await asyncio.sleep(interval_ms / 1000)
