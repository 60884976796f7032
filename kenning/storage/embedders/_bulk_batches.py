"""Bulk texts of concurrent calls, encoded together in sub-batches by priority.

Read ``BulkBatches.embed`` first. Eight ingests of two chunks each used to make eight
forward passes of two texts; here every waiting call's texts are cut into shared
sub-batches of at most ``size``, taken by (priority, arrival), so the model sees the batch
sizes a plain script would. A call only partly served queues again behind the calls that
arrived meanwhile at its priority, as before. Between sub-batches the batcher awaits
``ready`` (no query in flight): that is the preemption point.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Encode = Callable[[list[str]], Awaitable[NDArray[np.float32]]]


@dataclass(eq=False)
class _Call:
    texts: Sequence[str]
    done: asyncio.Future[NDArray[np.float32]]
    parts: list[NDArray[np.float32]] = field(default_factory=list)
    taken: int = 0  # texts already put in a sub-batch


@dataclass(frozen=True, slots=True)
class _Slice:
    call: _Call
    priority: int
    start: int
    end: int


class BulkBatches:
    """Coalesces waiting bulk calls into sub-batches of at most ``size`` texts.

    Example: ``await BulkBatches(8, encode, lanes.no_queries).embed(texts, priority=3)``.
    """

    def __init__(self, size: int, encode: Encode, ready: Callable[[], Awaitable[None]]) -> None:
        self._size, self._encode, self._ready = size, encode, ready
        self._waiting: list[tuple[int, int, _Call]] = []
        self._arrivals = itertools.count()
        self._drainer: asyncio.Task[None] | None = None

    async def embed(self, texts: Sequence[str], priority: int) -> NDArray[np.float32]:
        """The vectors of ``texts`` in order, encoded among other calls' texts."""
        call = _Call(texts, asyncio.get_running_loop().create_future())
        heapq.heappush(self._waiting, (priority, next(self._arrivals), call))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        # A cancelled caller cancels ``done``; the drainer then skips the rest of its texts.
        return await call.done

    async def _drain(self) -> None:
        try:
            while self._waiting:
                await self._ready()
                batch = self._take()
                if batch:
                    await self._run(batch)
                    for part in batch:  # a call with texts left queues again, as it arrived now
                        if part.end < len(part.call.texts) and not part.call.done.done():
                            entry = (part.priority, next(self._arrivals), part.call)
                            heapq.heappush(self._waiting, entry)
        finally:  # cancelled with the loop: nobody waits forever
            for _, _, call in self._waiting:
                if not call.done.done():
                    call.done.cancel()

    def _take(self) -> list[_Slice]:
        batch: list[_Slice] = []
        room = self._size
        while self._waiting and room:
            priority, _, call = heapq.heappop(self._waiting)
            if call.done.done():
                continue  # its caller was cancelled
            end = min(len(call.texts), call.taken + room)
            batch.append(_Slice(call, priority, call.taken, end))
            room -= end - call.taken
            call.taken = end
        return batch

    async def _run(self, batch: list[_Slice]) -> None:
        texts = [text for part in batch for text in part.call.texts[part.start : part.end]]
        try:
            array = await self._encode(texts)
        except Exception as error:
            if len(batch) == 1:
                _fail(batch[0].call, error)
                return
            # One call's text must not fail another's: encode each call's part alone.
            for part in batch:
                await self._run([part])
            return
        offset = 0
        for part in batch:
            count = part.end - part.start
            part.call.parts.append(array[offset : offset + count])
            offset += count
            if part.end == len(part.call.texts) and not part.call.done.done():
                part.call.done.set_result(np.concatenate(part.call.parts))


def _fail(call: _Call, error: Exception) -> None:
    if not call.done.done():
        call.done.set_exception(error)
