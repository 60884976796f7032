"""Wakes idle workers as soon as a job may be due, through PostgreSQL LISTEN/NOTIFY.

Notifications are hints; a worker also polls every few seconds, so a dropped listener
connection (it is re-opened) only costs latency, never work.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import asyncpg

from kenning.domain.queue.jobs import Lane
from kenning.settings import Settings
from kenning.storage.db.pool import connect
from kenning.storage.queue.job_queue import WAKE_CHANNEL

logger = logging.getLogger("kenning.queue")


class PgWakeup:
    """``ticket`` before looking for work, ``wait`` after finding none: a notification in
    between is not lost."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._conn: asyncpg.Connection | None = None
        self._generation = {lane: 0 for lane in Lane}
        self._events = {lane: asyncio.Event() for lane in Lane}
        self._lock = asyncio.Lock()

    def ticket(self, lane: Lane) -> int:
        return self._generation[lane]

    async def wait(self, lane: Lane, ticket: int, at_most: float) -> None:
        await self._ensure_listening()
        if self._generation[lane] != ticket:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._events[lane].wait(), at_most)

    def _notified(self, _conn: Any, _pid: int, _channel: str, payload: object) -> None:
        lanes = (
            [Lane(payload)]
            if isinstance(payload, str) and payload in Lane.__members__
            else list(Lane)
        )
        for lane in lanes:
            self._generation[lane] += 1
            event, self._events[lane] = self._events[lane], asyncio.Event()
            event.set()

    async def _ensure_listening(self) -> None:
        if self._conn is not None and not self._conn.is_closed():
            return
        async with self._lock:
            if self._conn is not None and not self._conn.is_closed():
                return
            try:
                conn = await connect(self._settings)
                await conn.add_listener(WAKE_CHANNEL, self._notified)
            except (OSError, asyncpg.PostgresError) as error:
                logger.warning("queue.wakeup.unavailable", extra={"error": type(error).__name__})
                return
            self._conn = conn

    async def aclose(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError, asyncpg.PostgresError):
                await self._conn.close()
            self._conn = None
