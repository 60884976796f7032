"""Announced sessions and recent priority-0 traffic: while any lease lives, a single GPU keeps
the orchestrator set; when the last one expires (auto-release) it returns to background.

Each session lease records its owner, and each client's priority-0 traffic renews a lease of
its own (`sessions`), so a release ends only the caller's own sessions and its
own client's traffic lease, wherever they were announced or sent: while another client's
lease lives, the GPU stays on the orchestrator set.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kenning.router.config import RouterSettings
from kenning.router.errors import TooManySessions
from kenning.router.scheduling.sessions import (
    CRITICAL_TRAFFIC,
    MAX_SESSIONS_PER_CLIENT,
    Session,
    SessionOwner,
    traffic_member,
)
from kenning.router.state.state import ResilientState

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

    # The latest expiry of any client's traffic lease; None: no recent priority-0 traffic.
    # One figure, not one per client: callers who see no names count it as one lease.
    traffic: float | None
    sessions: list[HeldSession]  # one per client and name, sorted by them

    @classmethod
    def of(cls, members: dict[str, float]) -> LiveLeases:
        """Group the shared lease set's members (each one announcement, or one client's
        traffic) into sessions and the traffic lease."""
        held: dict[tuple[str, str], tuple[set[str], float]] = {}
        traffic: float | None = None
        for member, expires_at in members.items():
            session = Session.parse(member)
            if session.traffic:
                traffic = max(expires_at, traffic or 0.0)
                continue
            at = (session.owner.client, session.name)
            keys, latest = held.get(at, (set(), 0.0))
            held[at] = (keys | {session.owner.key}, max(latest, expires_at))
        sessions = [
            HeldSession(client, name, tuple(sorted(keys)), expires_at)
            for (client, name), (keys, expires_at) in sorted(held.items())
        ]
        return cls(traffic, sessions)

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

    def __init__(
        self,
        settings: RouterSettings,
        state: ResilientState,
        max_sessions: int = MAX_SESSIONS_PER_CLIENT,
    ) -> None:
        self.settings = settings
        self.state = state
        self.max_sessions = max_sessions  # per client
        self.critical_inflight = 0
        # When this process last renewed each client's traffic lease (by member): one
        # client's traffic must not hold back the renewal of another's.
        self._last_touch: dict[str, float] = {}
        self._touches: set[asyncio.Task[None]] = set()
        self._announcing = asyncio.Lock()

    @property
    def ttl(self) -> float:
        return self.settings.auto_release_seconds

    async def announce(self, name: str | None, owner: SessionOwner) -> Session:
        """Start or renew ``owner``'s session ``name`` (a fresh name when None).

        Raises `TooManySessions` when it would be one more than the client may hold. The
        count and the write are one step within this process (each process may still add
        one past the limit at the same moment as another: a bound, not an exact count).
        """
        session = Session(owner, name or f"session-{uuid.uuid4().hex[:12]}")
        limit = self.max_sessions
        async with self._announcing:
            held = {s.name for s in (await self.live()).sessions if s.client == owner.client}
            if session.name not in held and len(held) >= limit:
                raise TooManySessions(limit)
            await self.state.touch_lease(session.member, time.time() + self.ttl)
        return session

    async def release(self, name: str | None, owner: SessionOwner, *, all_sessions: bool) -> None:
        """End the sessions this release reaches (`Session.ended_by`) and the caller's own
        client's traffic lease, so an explicit release swaps back without waiting for
        auto-release when nobody else holds the GPU.

        Another client's traffic lease is out of reach: only a caller with ``all_sessions``
        releasing every session (no name) ends every client's. Whether anything ended is not
        told, so a caller cannot probe for another client's session names.
        """
        everything = all_sessions and name is None
        own = traffic_member(owner)
        ended = {own}
        for member in await self.state.leases():
            session = Session.parse(member)
            if session.traffic:
                reached = everything
            else:
                reached = session.ended_by(name, owner, all_sessions=all_sessions)
            if reached:
                ended.add(member)
        for member in ended:
            await self.state.drop_lease(member)
            # The client's next priority-0 request renews its lease at once.
            self._last_touch.pop(member, None)

    async def live(self) -> LiveLeases:
        return LiveLeases.of(await self.state.leases())

    async def critical_active(self) -> bool:
        return self.critical_inflight > 0 or bool(await self.state.leases())

    @contextmanager
    def critical_request(self, owner: SessionOwner) -> Iterator[None]:
        """Count one running P0 request of ``owner``; its start and end renew its client's
        traffic lease."""
        self.critical_inflight += 1
        self.touch_traffic(owner)
        try:
            yield
        finally:
            self.critical_inflight -= 1
            self.touch_traffic(owner, force=True)

    def touch_traffic(self, owner: SessionOwner, *, force: bool = False) -> None:
        """Renew ``owner``'s client's traffic lease without making the request wait on Redis."""
        member = traffic_member(owner)
        now = time.monotonic()
        if not force and now - self._last_touch.get(member, 0.0) < _TOUCH_EVERY_SECONDS:
            return
        # Only touches within the last interval hold anything back: forget older ones, so
        # the map stays as small as the number of clients sending priority 0 right now.
        recent = {m: t for m, t in self._last_touch.items() if now - t < _TOUCH_EVERY_SECONDS}
        self._last_touch = {**recent, member: now}
        expires_at = time.time() + self.ttl
        self.state.local.lease_expiry[member] = expires_at
        task = asyncio.create_task(self.state.touch_lease(member, expires_at))
        self._touches.add(task)
        task.add_done_callback(self._touches.discard)
