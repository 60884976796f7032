"""What a running server holds: settings and the open pools, built in the app's lifespan."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import asyncpg
import redis.asyncio as aioredis

from kenning.settings import Settings


@dataclass(slots=True)
class Runtime:
    """Open resources shared by every request of one process."""

    settings: Settings
    pool: asyncpg.Pool
    redis: aioredis.Redis
    started_at: float = field(default_factory=time.time)
