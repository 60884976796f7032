"""One bus listener per process, fanned out to every local subscriber.

Each subscriber has a bounded inbox; one that falls behind loses its backlog and gets
``RESYNC`` instead, so a slow websocket never holds memory or delays the others, and still
ends up with the truth (it re-reads state on ``RESYNC``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from kenning.domain.queue.ports import RESYNC, BusMessage, EventSource

logger = logging.getLogger("kenning.queue")

INBOX_SIZE = 1000
READY_TIMEOUT = 5.0
MAX_RESTARTS = 100_000
RESTART_PAUSE = 1.0


@dataclass(frozen=True, slots=True)
class JobPosition:
    """A watched queued job's 1-based rank in its lane at ``version``; computed in this
    process (``kenning.domain.queue.progress.PositionWatch``), never sent on the bus."""

    job_id: str
    version: int
    position: int


InboxMessage = BusMessage | JobPosition


class Inbox:
    """A subscriber's messages; ``get`` waits, ``drain`` takes what is there."""

    def __init__(self, size: int = INBOX_SIZE) -> None:
        self._queue: asyncio.Queue[InboxMessage] = asyncio.Queue(size)

    def offer(self, message: InboxMessage) -> None:
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            self.drain()
            self._queue.put_nowait(RESYNC)

    async def get(self, within: float) -> InboxMessage | None:
        """The next message, or ``None`` after ``within`` seconds without one."""
        # Not wait_for: on Python 3.11 it returns a message that arrives as the caller is
        # cancelled and drops the cancellation, so a listener being stopped ran on.
        try:
            async with asyncio.timeout(within):
                return await self._queue.get()
        except TimeoutError:
            return None

    def drain(self) -> list[InboxMessage]:
        taken = []
        while not self._queue.empty():
            taken.append(self._queue.get_nowait())
        return taken


class EventHub:
    """Starts listening on the first subscription; ``aclose`` stops it."""

    def __init__(self, source: EventSource) -> None:
        self._source = source
        self._inboxes: set[Inbox] = set()
        self._task: asyncio.Task[None] | None = None

    @property
    def subscribers(self) -> int:
        return len(self._inboxes)

    @property
    def ready(self) -> bool:
        """False while the bus is unreachable: events may be missed, so poll instead."""
        return self._source.ready

    @asynccontextmanager
    async def subscribe(self, wait: float = READY_TIMEOUT) -> AsyncIterator[Inbox]:
        """An inbox receiving every event from the moment this returns while ``ready``.

        Waits up to ``wait`` seconds for the bus; when it is not reachable by then, the
        caller gets the inbox anyway and should poll until ``ready`` turns true.
        """
        inbox = Inbox()
        self._inboxes.add(inbox)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="kenning-event-hub")
        await self._source.wait_ready(wait)
        try:
            yield inbox
        finally:
            self._inboxes.discard(inbox)

    async def _run(self) -> None:
        for _ in range(MAX_RESTARTS):
            try:
                async for message in self._source.messages():
                    for inbox in list(self._inboxes):
                        inbox.offer(message)
            except Exception:
                # The source reconnects by itself; this is a bug or a surprise. Start over,
                # and tell subscribers they may have missed events.
                logger.exception("queue.events.listener_failed")
                for inbox in list(self._inboxes):
                    inbox.offer(RESYNC)
                await asyncio.sleep(RESTART_PAUSE)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
