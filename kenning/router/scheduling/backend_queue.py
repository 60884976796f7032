"""The router's own queue in front of one backend: a bounded number of requests in flight,
the rest waiting in priority order (Ollama's 503 bound does not cover loaded models)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import dataclass, field

from kenning.router.scheduling.policy import Priority, queue_key


class Rerouted(Exception):
    """A waiter was released without a slot and must choose a backend again."""


@dataclass(order=True)
class _Waiter:
    key: tuple[int, int]
    future: asyncio.Future[None] = field(compare=False)
    preemptible: bool = field(compare=False)


class BackendQueue:
    """At most ``depth`` requests in flight; waiters served by (priority, arrival).

    Example: ``await q.acquire_place(Priority.CRITICAL, preemptible=False)`` ... ``q.release()``.
    """

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.inflight = 0
        self._heap: list[_Waiter] = []
        self._seq = itertools.count()

    @property
    def waiting(self) -> int:
        return sum(1 for w in self._heap if not w.future.done())

    def waiting_by_priority(self) -> list[int]:
        return [w.key[0] for w in sorted(self._heap) if not w.future.done()]

    async def acquire_place(self, priority: Priority, *, preemptible: bool) -> None:
        """Wait for one of the ``depth`` places in flight; raises `Rerouted` if told to go
        elsewhere meanwhile."""
        if self.inflight < self.depth and self.waiting == 0:
            self.inflight += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(
            self._heap, _Waiter(queue_key(priority, next(self._seq)), future, preemptible)
        )
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled() and future.exception() is None:
                self.release()  # granted at the moment we were cancelled
            future.cancel()
            raise

    def release(self) -> None:
        self.inflight -= 1
        self._wake()

    def reroute(self, *, preemptible_only: bool) -> int:
        """Send waiters back to placement (background ones on preemption, all on failure)."""
        count = 0
        for waiter in self._heap:
            if not waiter.future.done() and (waiter.preemptible or not preemptible_only):
                waiter.future.set_exception(Rerouted())
                count += 1
        self._compact()
        return count

    def _wake(self) -> None:
        while self.inflight < self.depth and self._heap:
            waiter = heapq.heappop(self._heap)
            if waiter.future.done():
                continue
            self.inflight += 1
            waiter.future.set_result(None)

    def _compact(self) -> None:
        self._heap = [w for w in self._heap if not w.future.done()]
        heapq.heapify(self._heap)
