"""The one fake of each of a queue worker's small ports: ``Wakeup`` (``InstantWakeup``: a
short nap instead of a notification) and ``WorkerRegistry`` (``SilentRegistry``)."""

from __future__ import annotations

import asyncio

from kenning.domain.queue.jobs import Lane


class InstantWakeup:
    """Never notified: a slot looking for work naps at most 10 ms before it looks again."""

    def ticket(self, lane: Lane) -> int:
        return 0

    async def wait(self, lane: Lane, ticket: int, at_most: float) -> None:
        await asyncio.sleep(min(at_most, 0.01))


class SilentRegistry:
    """Hears that workers are alive or gone and keeps nothing."""

    async def alive(self, worker_id: str, ttl: float) -> None:
        return None

    async def gone(self, worker_id: str) -> None:
        return None
