"""Which workers are alive: a Redis sorted set of worker ids scored by when they expire."""

from __future__ import annotations

import contextlib
import logging
import time

import redis.asyncio as aioredis
from redis.exceptions import RedisError

logger = logging.getLogger("kenning.queue")


def registry_key(database: str) -> str:
    """The set of one database's workers."""
    return f"kenning:{database}:workers"


class RedisWorkerRegistry:
    """Workers announce themselves every few seconds; silence for ``ttl`` means gone."""

    def __init__(self, redis: aioredis.Redis, key: str) -> None:
        self._redis = redis
        self._key = key

    async def alive(self, worker_id: str, ttl: float) -> None:
        """Announce ``worker_id`` for the next ``ttl`` seconds (best effort)."""
        try:
            await self._redis.zadd(self._key, {worker_id: time.time() + ttl})
        except (RedisError, OSError) as error:
            logger.warning("queue.worker.announce_failed", extra={"error": type(error).__name__})

    async def gone(self, worker_id: str) -> None:
        with contextlib.suppress(RedisError, OSError):  # it expires on its own anyway
            await self._redis.zrem(self._key, worker_id)

    async def workers(self) -> tuple[str, ...] | None:
        """Ids of live workers, or ``None`` when Redis cannot say."""
        now = time.time()
        try:
            await self._redis.zremrangebyscore(self._key, "-inf", now)
            ids = await self._redis.zrangebyscore(self._key, now, "+inf")
        except (RedisError, OSError):
            return None
        return tuple(sorted(i.decode() if isinstance(i, bytes) else str(i) for i in ids))
