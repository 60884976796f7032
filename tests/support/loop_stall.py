"""How long the event loop stood still while something ran: a task sleeps 5 ms at a time
and records how late each wake-up came. The largest lateness is the longest stall any other
request or websocket would have waited through.

Example::

    async with LoopStalls() as stalls:
        await client.post(...)
    assert stalls.longest < 0.05
"""

from __future__ import annotations

import asyncio
import time
from types import TracebackType

PERIOD = 0.005


class LoopStalls:
    """The lateness of a 5 ms sleeper, in seconds, while the block ran."""

    def __init__(self) -> None:
        self.lateness: list[float] = []
        self._task: asyncio.Task[None] | None = None
        self._asleep_since = 0.0

    @property
    def longest(self) -> float:
        return max(self.lateness, default=0.0)

    async def __aenter__(self) -> LoopStalls:
        self._task = asyncio.create_task(self._sleep())
        await asyncio.sleep(0)  # the sleeper is running before the block starts
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._task is not None
        # A block that never yielded ends before the sleeper wakes: its wait counts too.
        self.lateness.append(max(0.0, time.perf_counter() - self._asleep_since - PERIOD))
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    async def _sleep(self) -> None:
        while True:
            self._asleep_since = time.perf_counter()
            await asyncio.sleep(PERIOD)
            self.lateness.append(time.perf_counter() - self._asleep_since - PERIOD)
