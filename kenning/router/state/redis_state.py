"""Router state in Redis: a hash of GPU → set, a sorted set of leases scored by expiry."""

from __future__ import annotations

import time
from typing import Any, cast

from redis.asyncio import Redis

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class RedisState:
    """Every key starts with ``prefix`` so several routers (or tests) can share a Redis."""

    def __init__(self, url: str, prefix: str = "kenning:router:", timeout: float = 0.5) -> None:
        self._redis: Redis = Redis.from_url(
            url, socket_connect_timeout=timeout, socket_timeout=timeout, decode_responses=True
        )
        self._sets = f"{prefix}sets"
        self._leases = f"{prefix}leases"
        self._lock = f"{prefix}lock:"

    async def get_sets(self) -> dict[str, str]:
        return cast(dict[str, str], await self._call(self._redis.hgetall(self._sets)))

    async def put_set(self, gpu: str, model_set: str) -> None:
        await self._call(self._redis.hset(self._sets, gpu, model_set))

    async def merge_sets(self, sets: dict[str, str]) -> None:
        for gpu, model_set in sets.items():
            await self._call(self._redis.hsetnx(self._sets, gpu, model_set))

    async def touch_lease(self, session: str, expires_at: float) -> None:
        await self._redis.zadd(self._leases, {session: expires_at}, gt=True)

    async def merge_leases(self, leases: dict[str, float]) -> None:
        if leases:
            await self._redis.zadd(self._leases, leases, gt=True)

    async def drop_lease(self, session: str) -> None:
        await self._redis.zrem(self._leases, session)

    async def leases(self) -> dict[str, float]:
        now = time.time()
        await self._redis.zremrangebyscore(self._leases, "-inf", now)
        pairs: list[tuple[str, float]] = await self._call(
            self._redis.zrange(self._leases, 0, -1, withscores=True)
        )
        return {str(member): float(score) for member, score in pairs}

    async def acquire_lock(self, name: str, owner: str, ttl: float) -> bool:
        key = self._lock + name
        if await self._redis.set(key, owner, nx=True, px=int(ttl * 1000)):
            return True
        return bool(await self._redis.get(key) == owner)

    async def release_lock(self, name: str, owner: str) -> None:
        await self._call(self._redis.eval(_RELEASE, 1, self._lock + name, owner))

    async def close(self) -> None:
        await self._redis.aclose()

    @staticmethod
    async def _call(awaitable: Any) -> Any:
        # redis-py types some async commands as `Awaitable[T] | T`; awaiting is always right here.
        return await awaitable
