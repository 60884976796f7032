"""Announced sessions and recent priority-0 traffic: while any lease lives, a single GPU keeps
the orchestrator set; when the last one expires (auto-release) it returns to background.

Each session lease records its owner (`kenning.router.sessions`), so a release ends only the
caller's own sessions wherever they were announced.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .config import RouterSettings
from .sessions import CRITICAL_TRAFFIC, Session, SessionOwner
from .state import ResilientState

_TOUCH_EVERY_SECONDS = 1.0


@dataclass(frozen=True)
class HeldSession:
    """One live session: its client, its name, the ids of the keys that announced it (the
    latest expiry of their announcements is its expiry)."""

    client: str
    name: str
    keys: tuple[str, ...]
    expires_at: float


@dataclass(frozen=True)
class LiveLeases:
    """The live leases at one read of the shared state."""

    traffic: float | None  # the traffic lease's expiry; None: no recent priority-0 traffic
    sessions: list[HeldSession]  # one per client and name, sorted by them

    @classmethod
    def of(cls, members: dict[str, float]) -> LiveLeases:
        """Group the shared lease set's members (each one announcement) into sessions."""
        held: dict[tuple[str, str], tuple[set[str], float]] = {}
        for member, expires_at in members.items():
            if member == CRITICAL_TRAFFIC:
                continue
            session = Session.parse(member)
            at = (session.owner.client, session.name)
            keys, latest = held.get(at, (set(), 0.0))
            held[at] = (keys | {session.owner.key}, max(latest, expires_at))
        sessions = [
            HeldSession(client, name, tuple(sorted(keys)), expires_at)
            for (client, name), (keys, expires_at) in sorted(held.items())
        ]
        return cls(members.get(CRITICAL_TRAFFIC), sessions)

    @property
    def count(self) -> int:
        """How many leases live: each session once, and the traffic lease."""
        return len(self.sessions) + (self.traffic is not None)

    def by_name(self) -> dict[str, float]:
        """Expiry by name, the traffic lease as `CRITICAL_TRAFFIC`. Sessions of several
        clients under one name are one entry here, with the latest expiry."""
        named = {CRITICAL_TRAFFIC: self.traffic} if self.traffic is not None else {}
        for session in self.sessions:
            named[session.name] = max(session.expires_at, named.get(session.name, 0.0))
        return named


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

    async def announce(self, name: str | None, owner: SessionOwner) -> Session:
        session = Session(owner, name or f"session-{uuid.uuid4().hex[:12]}")
        await self.state.touch_lease(session.member, time.time() + self.ttl)
        return session

    async def release(self, name: str | None, owner: SessionOwner, *, all_sessions: bool) -> bool:
        """End the sessions this release reaches (`Session.ended_by`); True when the GPU may
        swap back at once.

        Only then is the traffic lease dropped too, so an explicit release swaps back without
        waiting for auto-release: that lease is shared by every caller's priority-0 requests,
        and a release that ended nothing must not cut another client's short.
        """
        ended = [
            member
            for member in await self.state.leases()
            if member != CRITICAL_TRAFFIC
            and Session.parse(member).ended_by(name, owner, all_sessions=all_sessions)
        ]
        for member in ended:
            await self.state.drop_lease(member)
        if not ended and not all_sessions:
            return False
        await self.state.drop_lease(CRITICAL_TRAFFIC)
        self._last_touch = 0.0
        return True

    async def live(self) -> LiveLeases:
        return LiveLeases.of(await self.state.leases())

    async def critical_active(self) -> bool:
        return self.critical_inflight > 0 or bool(await self.state.leases())

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
