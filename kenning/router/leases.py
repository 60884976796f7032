"""Announced sessions and recent priority-0 traffic: while any lease lives, a single GPU keeps
the orchestrator set; when the last one expires (auto-release) it returns to background."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from .config import RouterSettings
from .state import ResilientState

CRITICAL_TRAFFIC = "p0-traffic"
_TOUCH_EVERY_SECONDS = 1.0


class SessionLeases:
    """Leases live in the shared state, so every Kenning process sees the same ones."""

    def __init__(self, settings: RouterSettings, state: ResilientState) -> None:
        self.settings = settings
        self.state = state
        self.critical_inflight = 0
        self._last_touch = 0.0
        self._touches: set[asyncio.Task[None]] = set()

    @property
    def ttl(self) -> float:
        return self.settings.auto_release_seconds

    async def announce(self, session: str | None) -> str:
        session = session or f"session-{uuid.uuid4().hex[:12]}"
        await self.state.touch_lease(session, time.time() + self.ttl)
        return session

    async def release(self, session: str | None) -> None:
        """Drop the caller's lease (all announced leases when none is named) and the traffic
        lease, so an explicit release swaps back without waiting for auto-release."""
        if session is None:
            for name in await self.state.leases():
                await self.state.drop_lease(name)
        else:
            await self.state.drop_lease(session)
        await self.state.drop_lease(CRITICAL_TRAFFIC)
        self._last_touch = 0.0

    async def active(self) -> dict[str, float]:
        return await self.state.leases()

    async def critical_active(self) -> bool:
        return self.critical_inflight > 0 or bool(await self.active())

    @contextmanager
    def critical_request(self) -> Iterator[None]:
        """Count one running P0 request; its start and end renew the traffic lease."""
        self.critical_inflight += 1
        self.touch_traffic()
        try:
            yield
        finally:
            self.critical_inflight -= 1
            self.touch_traffic(force=True)

    def touch_traffic(self, *, force: bool = False) -> None:
        """Renew the traffic lease without making the request wait on Redis."""
        now = time.monotonic()
        if not force and now - self._last_touch < _TOUCH_EVERY_SECONDS:
            return
        self._last_touch = now
        self.state.local.lease_expiry[CRITICAL_TRAFFIC] = time.time() + self.ttl
        task = asyncio.create_task(self.state.touch_lease(CRITICAL_TRAFFIC, time.time() + self.ttl))
        self._touches.add(task)
        task.add_done_callback(self._touches.discard)
