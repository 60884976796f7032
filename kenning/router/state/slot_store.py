"""GPU slots in Redis: per backend, a sorted set of slot leases scored by expiry (Redis time, ms).

Keys (``prefix`` first): ``slots:<gpu>`` holders, ``slotwait:<gpu>`` waiters (also scored by
expiry, so a dead process's waiter vanishes), ``slotclaim:<gpu>`` a short marker a priority-0
claim sets so background work stays off that GPU meanwhile. A member names its holder:
``<priority>|<b or i>|<process>|<lease id>`` (``b`` = preemptible background work). Every
change runs in one Lua script, so two processes never both take the last slot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, cast

from redis.asyncio import Redis

# Why a script: the expiry sweep, the count and the insert must be one atomic step.
_ACQUIRE_MEMBER = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, depth, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local priority, preemptible = tonumber(string.sub(member, 1, 1)), ARGV[4] == '1'
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if preemptible and redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('ZREM', KEYS[2], member)
  return 2
end
for _, other in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if other ~= member and tonumber(string.sub(other, 1, 1)) < priority then
    if preemptible then redis.call('ZREM', KEYS[2], member) return 2 end
    redis.call('ZADD', KEYS[2], now + ttl, member)
    return 0
  end
end
if redis.call('ZCARD', KEYS[1]) >= depth then
  redis.call('ZADD', KEYS[2], now + ttl, member)
  return 0
end
redis.call('ZREM', KEYS[2], member)
redis.call('ZADD', KEYS[1], now + ttl, member)
return 1
"""

# Renewal extends a held member, and re-adds one that expired or vanished (Redis restarted
# empty: merging back), unless its release left a tombstone: a renewal that raced past the
# release must not bring back a slot nobody holds. KEYS: n holder sets, then n tombstones.
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #ARGV - 1
for i = 1, n do
  local member = ARGV[i + 1]
  if redis.call('ZSCORE', KEYS[i], member) or redis.call('EXISTS', KEYS[n + i]) == 0 then
    redis.call('ZADD', KEYS[i], now + tonumber(ARGV[1]), member)
  end
end
return n
"""

_HOLDERS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local out = {}
for i, v in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')) do
  if i % 2 == 1 then table.insert(out, v) else table.insert(out, tostring(tonumber(v) - now)) end
end
return out
"""


class Grant(IntEnum):
    """What `RedisSlots.acquire_member` got: wait for a release, the slot, or go elsewhere."""

    WAIT = 0
    GRANTED = 1
    YIELD = 2


@dataclass(frozen=True)
class SlotHolder:
    """One slot lease as stored: who holds it and for how much longer."""

    member: str
    priority: int
    preemptible: bool
    process: str
    lease: str
    expires_in: float


def slot_member(priority: int, preemptible: bool, process: str, lease: str) -> str:
    """The stored name of a slot lease, e.g. ``slot_member(3, True, "p1", "l7") == "3|b|p1|l7"``."""
    return f"{int(priority)}|{'b' if preemptible else 'i'}|{process}|{lease}"


def parse_member(member: str, expires_in: float = 0.0) -> SlotHolder:
    priority, kind, process, lease = [*member.split("|", 3), "", "", ""][:4]
    rank = int(priority) if priority.isdigit() else 0
    return SlotHolder(member, rank, kind == "b", process, lease, expires_in)


class RedisSlots:
    """The Redis side of shared slots; every call may raise a redis error (callers fall back)."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self.channel = f"{prefix}slots:events"
        self._acquire_member = redis.register_script(_ACQUIRE_MEMBER)
        self._renew = redis.register_script(_RENEW)
        self._holders = redis.register_script(_HOLDERS)

    def _keys(self, gpu: str) -> list[str]:
        p = self.prefix
        return [f"{p}slots:{gpu}", f"{p}slotwait:{gpu}", f"{p}slotclaim:{gpu}"]

    async def acquire_member(
        self, gpu: str, member: str, depth: int, ttl: float, background: bool
    ) -> Grant:
        """One attempt to hold ``member``'s slot on ``gpu``: granted, waiting, or yield."""
        args: list[str | int] = [member, depth, int(ttl * 1000), "1" if background else "0"]
        return Grant(int(await self._acquire_member(keys=self._keys(gpu), args=args)))

    async def renew(self, held: list[tuple[str, str]], ttl: float) -> None:
        """Extend (or re-register) every ``(gpu, member)`` this process holds."""
        if held:
            keys = [self._keys(gpu)[0] for gpu, _ in held] + [self._gone(m) for _, m in held]
            await self._renew(keys=keys, args=[int(ttl * 1000), *[m for _, m in held]])

    def _gone(self, member: str) -> str:
        return f"{self.prefix}slotgone:{member}"

    async def release(self, gpu: str, member: str, ttl: float) -> None:
        """Free the slot (and a waiter's place); a tombstone for one lease keeps a renewal
        already under way from adding it back."""
        holders, waiters, _ = self._keys(gpu)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self._gone(member), "1", px=int(ttl * 1000))
            pipe.zrem(holders, member)
            pipe.zrem(waiters, member)
            await pipe.execute()
        await self.publish({"kind": "release", "backend": gpu})

    async def claim(self, gpu: str, ttl: float) -> None:
        """Keep background work off ``gpu`` for ``ttl`` seconds (a priority-0 request claims it)."""
        await cast(Any, self.redis.set(self._keys(gpu)[2], "1", px=int(ttl * 1000)))

    async def unclaim(self, gpu: str) -> None:
        await cast(Any, self.redis.delete(self._keys(gpu)[2]))

    async def holders(self, gpu: str) -> list[SlotHolder]:
        flat = await self._holders(keys=[self._keys(gpu)[0]])
        pairs = zip(flat[::2], flat[1::2], strict=True)
        return [parse_member(str(m), float(ms) / 1000) for m, ms in pairs]

    async def waiting(self, gpu: str) -> int:
        return int(await cast(Any, self.redis.zcard(self._keys(gpu)[1])))

    async def ping(self) -> None:
        await cast(Any, self.redis.ping())

    async def publish(self, message: dict[str, Any]) -> None:
        await cast(Any, self.redis.publish(self.channel, json.dumps(message)))
