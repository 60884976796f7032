"""Two lanes over one local model: interactive calls never queue behind bulk batches.

Read ``Lanes.run`` first. Bulk work (priority 3 and up, or any large call) holds the bulk
lane one sub-batch at a time, admitted by (priority, arrival); before each sub-batch it
waits while interactive calls are in flight, which is the preemption point. Interactive
work (a few texts below priority 3: a search query) runs on its own encoder at once,
alongside at most one bulk sub-batch already on the cores, never behind it.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

T = TypeVar("T")


class Lanes:
    """Schedules encoder calls: interactive first and at once, bulk by priority between."""

    def __init__(self) -> None:
        self._bulk = PriorityGate()
        self._interactive = PriorityGate()
        self._in_flight = 0
        self._no_interactive = asyncio.Event()
        self._no_interactive.set()

    async def run(self, interactive: bool, priority: int, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` (one sub-batch) in its lane; ``interactive`` skips the bulk queue."""
        if interactive:
            return await self._run_interactive(priority, work)
        async with self._bulk.turn(priority):
            # Holding the turn keeps bulk order; only bulk waits for the interactive calls.
            await self._no_interactive.wait()
            return await work()

    async def no_queries(self) -> None:
        """Return once no interactive call is in flight: bulk's preemption point."""
        await self._no_interactive.wait()

    async def _run_interactive(self, priority: int, work: Callable[[], Awaitable[T]]) -> T:
        self._in_flight += 1
        self._no_interactive.clear()
        try:
            async with self._interactive.turn(priority):
                return await work()
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._no_interactive.set()


class PriorityGate:
    """One holder at a time; waiters are admitted by (priority, arrival).

    Example: ``async with gate.turn(3): ...``.
    """

    def __init__(self) -> None:
        self._busy = False
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    @asynccontextmanager
    async def turn(self, priority: int) -> AsyncIterator[None]:
        if self._busy:
            admitted = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiters, (priority, next(self._arrivals), admitted))
            try:
                await admitted
            except asyncio.CancelledError:
                if admitted.done() and not admitted.cancelled():
                    self._release()  # admitted just as we were cancelled: pass the turn on
                raise
        else:
            self._busy = True
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        # Granted on the next loop turn, so a caller whose next sub-batch is queued at once
        # (no await in between) competes for the turn by its priority, not after everyone.
        asyncio.get_running_loop().call_soon(self._grant)

    def _grant(self) -> None:
        while self._waiters:
            _, _, admitted = heapq.heappop(self._waiters)
            if not admitted.done():  # cancelled waiters are skipped
                admitted.set_result(None)
                return
        self._busy = False
