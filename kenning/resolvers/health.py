"""Resolvers for the server's own state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from datetime import UTC, datetime

from kenning import __version__
from kenning.domain.errors import ValidationError
from kenning.domain.health import overall
from kenning.graphql.context import Info
from kenning.schema.health import (
    Health,
    HealthStatus,
    Heartbeat,
    ModelHealth,
    ModelState,
    PartHealth,
)

MAX_HEARTBEATS = 1000


async def resolve_health(info: Info) -> Health:
    """Each part's state and version; a part that is down never fails the whole answer."""
    runtime = info.context.runtime
    parts = await runtime.parts()
    versions = {part.name: part.version for part in parts if part.up}
    return Health(
        status=HealthStatus(overall(parts)),
        parts=[PartHealth(name=p.name, up=p.up, version=p.version, detail=p.detail) for p in parts],
        postgres=versions.get("postgres"),
        age=versions.get("age"),
        pgvector=versions.get("pgvector"),
        redis=versions.get("redis"),
        kenning=__version__,
        schema_revision=await runtime.schema_revision() if versions.get("postgres") else None,
        models=[
            ModelHealth(
                role=m.role, model=m.model, state=ModelState(m.state.value), detail=m.detail
            )
            for m in await runtime.model_watch.health()
        ],
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
