"""Router state shared between Kenning processes: which set each GPU holds, announced leases.

`ResilientState` keeps a local copy of everything and mirrors it to Redis when one is
configured. When Redis is unreachable (down, restarting) each process keeps routing on its
local copy: GPU sets it swapped itself and leases it saw stay valid, and a second process's
changes are not seen until Redis returns. Redis is retried at most once per second; on the
first success the local copy is written back without overwriting what other processes wrote
meanwhile (sets only where missing, leases keep the later expiry), so a Redis that restarted
empty is re-seeded. A ``state_store`` event reports each transition.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")


class StateStore(Protocol):
    async def get_sets(self) -> dict[str, str]: ...
    async def put_set(self, gpu: str, model_set: str) -> None: ...
    async def touch_lease(self, session: str, expires_at: float) -> None: ...
    async def drop_lease(self, session: str) -> None: ...
    async def leases(self) -> dict[str, float]: ...
    async def acquire_lock(self, name: str, owner: str, ttl: float) -> bool: ...
    async def release_lock(self, name: str, owner: str) -> None: ...
    async def close(self) -> None: ...


class MemoryState:
    """Process-local state; also the fallback copy inside `ResilientState`."""

    def __init__(self) -> None:
        self.sets: dict[str, str] = {}
        self.lease_expiry: dict[str, float] = {}
        self.locks: dict[str, tuple[str, float]] = {}

    async def get_sets(self) -> dict[str, str]:
        return dict(self.sets)

    async def put_set(self, gpu: str, model_set: str) -> None:
        self.sets[gpu] = model_set

    async def touch_lease(self, session: str, expires_at: float) -> None:
        self.lease_expiry[session] = max(expires_at, self.lease_expiry.get(session, 0.0))

    async def drop_lease(self, session: str) -> None:
        self.lease_expiry.pop(session, None)

    async def leases(self) -> dict[str, float]:
        now = time.time()
        self.lease_expiry = {k: v for k, v in self.lease_expiry.items() if v > now}
        return dict(self.lease_expiry)

    async def acquire_lock(self, name: str, owner: str, ttl: float) -> bool:
        holder = self.locks.get(name)
        if holder is not None and holder[0] != owner and holder[1] > time.monotonic():
            return False
        self.locks[name] = (owner, time.monotonic() + ttl)
        return True

    async def release_lock(self, name: str, owner: str) -> None:
        if self.locks.get(name, ("", 0.0))[0] == owner:
            del self.locks[name]

    async def close(self) -> None:
        return None


class SharedState(StateStore, Protocol):
    async def merge_sets(self, sets: dict[str, str]) -> None: ...
    async def merge_leases(self, leases: dict[str, float]) -> None: ...


class ResilientState:
    """Redis when reachable, the local copy when not (see the module docstring)."""

    RETRY_SECONDS = 1.0

    def __init__(
        self,
        shared: SharedState | None,
        on_transition: Callable[[bool, str], None] | None = None,
    ) -> None:
        self.local = MemoryState()
        self.shared = shared
        self.redis_up = shared is not None
        self._retry_at = 0.0
        self._needs_resync = False
        self._on_transition = on_transition

    @property
    def backend_name(self) -> str:
        if self.shared is None:
            return "memory"
        return "redis" if self.redis_up else "memory (redis unreachable)"

    async def _shared(self, op: Callable[[SharedState], Awaitable[T]]) -> tuple[bool, T | None]:
        if self.shared is None or time.monotonic() < self._retry_at:
            return False, None
        try:
            if self._needs_resync:
                await self.shared.merge_sets(await self.local.get_sets())
                await self.shared.merge_leases(await self.local.leases())
                self._needs_resync = False
            result = await op(self.shared)
        except Exception as exc:  # any Redis failure means: fall back, retry later
            self._retry_at = time.monotonic() + self.RETRY_SECONDS
            self._needs_resync = True
            if self.redis_up:
                self.redis_up = False
                logger.warning("router state: redis unreachable, using local state: %s", exc)
                self._notify(False, str(exc))
            return False, None
        if not self.redis_up:
            self.redis_up = True
            logger.info("router state: redis reachable again, local state written back")
            self._notify(True, "resynced")
        return True, result

    def _notify(self, up: bool, detail: str) -> None:
        if self._on_transition is not None:
            self._on_transition(up, detail)

    async def get_sets(self) -> dict[str, str]:
        ok, sets = await self._shared(lambda s: s.get_sets())
        if ok and sets is not None:
            self.local.sets = dict(sets)
        return await self.local.get_sets()

    async def put_set(self, gpu: str, model_set: str) -> None:
        await self.local.put_set(gpu, model_set)
        await self._shared(lambda s: s.put_set(gpu, model_set))

    async def touch_lease(self, session: str, expires_at: float) -> None:
        await self.local.touch_lease(session, expires_at)
        await self._shared(lambda s: s.touch_lease(session, expires_at))

    async def drop_lease(self, session: str) -> None:
        await self.local.drop_lease(session)
        await self._shared(lambda s: s.drop_lease(session))

    async def leases(self) -> dict[str, float]:
        ok, leases = await self._shared(lambda s: s.leases())
        if ok and leases is not None:
            self.local.lease_expiry = dict(leases)
        return await self.local.leases()

    async def acquire_lock(self, name: str, owner: str, ttl: float) -> bool:
        ok, got = await self._shared(lambda s: s.acquire_lock(name, owner, ttl))
        if ok:
            return bool(got)
        return await self.local.acquire_lock(name, owner, ttl)

    async def release_lock(self, name: str, owner: str) -> None:
        await self.local.release_lock(name, owner)
        await self._shared(lambda s: s.release_lock(name, owner))

    async def close(self) -> None:
        if self.shared is not None:
            try:
                await self.shared.close()
            except Exception:  # closing a dead connection may fail; nothing to do about it
                logger.debug("router state: error closing redis", exc_info=True)
