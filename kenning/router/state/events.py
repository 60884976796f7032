"""Router events (preemptions, set swaps, backend health) fanned out to async iterators.

The GraphQL layer exposes them as the ``routerEvents`` subscription.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventKind(StrEnum):
    PREEMPTION = "preemption"
    SWAP_STARTED = "swap_started"
    SWAP_FINISHED = "swap_finished"
    SWAP_FAILED = "swap_failed"
    BACKEND_HEALTH = "backend_health"
    ANNOUNCE = "announce"
    RELEASE = "release"
    STATE_STORE = "state_store"


@dataclass(frozen=True)
class RouterEvent:
    kind: EventKind
    backend: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "backend": self.backend, "at": self.at, **self.detail}


class EventHub:
    """Publish never blocks: a slow subscriber loses its oldest events, not the router."""

    def __init__(self, buffer: int = 256) -> None:
        self._buffer = buffer
        self._subscribers: set[asyncio.Queue[RouterEvent]] = set()
        self.recent: deque[RouterEvent] = deque(maxlen=buffer)

    def publish(self, event: RouterEvent) -> None:
        self.recent.append(event)
        for queue in self._subscribers:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(event)

    async def subscribe(self) -> AsyncGenerator[RouterEvent, None]:
        """Events from now on, until the consumer stops iterating.

        Example: ``async for event in router.events(): print(event.kind)``.
        """
        queue: asyncio.Queue[RouterEvent] = asyncio.Queue(maxsize=self._buffer)
        self._subscribers.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._subscribers.discard(queue)
