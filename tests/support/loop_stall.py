"""How long the event loop stood still while something ran: a task sleeps 5 ms at a time
and records how late each wake-up came. The largest lateness is the longest stall any other
request or websocket would have waited through.

A wake-up counts as late only by what this process spent: its CPU time over the sleep (all
threads; a thread holding the GIL stalls the loop as surely as the loop's own code), and
less the time the loop's thread stood ready on the kernel's run queue (``run_delay``: the
CPU was given to another process, or to another of ours on the second core). Time the
machine gave to other processes (the database, a second test run, a busy CI host) is not a
stall of Kenning's making, and a loaded machine would otherwise fail a quiet test. Waiting
for the GIL is a sleep, not a run-queue wait, so it still counts.

The measure starts from the heap a server has after its start: everything alive before
the block is collected and frozen (``gc.freeze``, as ``kenning.lifespan`` does once the
server has loaded), and unfrozen after. A test process holds what thousands of earlier
tests left alive, and a full collection over it paused the loop 80 to 290 ms wherever it
happened to fall; garbage the block itself makes is still collected, and counts. The
worst wake-up says how much of it was the collector.

Example::

    async with LoopStalls() as stalls:
        await client.post(...)
    assert stalls.longest < 0.05
"""

from __future__ import annotations

import asyncio
import gc
import os
import resource
import threading
import time
from pathlib import Path
from types import TracebackType

PERIOD = 0.005


def run_delay() -> float:
    """Seconds the calling thread has spent ready to run but waiting for a CPU (the second
    field of Linux's ``/proc/self/task/<tid>/schedstat``); 0.0 where the kernel keeps none."""
    try:
        fields = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat").read_text()
    except OSError:
        return 0.0
    return int(fields.split()[1]) / 1e9


class LoopStalls:
    """The lateness of a 5 ms sleeper, in seconds, while the block ran: at most the CPU
    time this process used while the sleeper waited."""

    def __init__(self) -> None:
        self.lateness: list[float] = []
        self._task: asyncio.Task[None] | None = None
        self._asleep_since = 0.0
        self._cpu_since = 0.0
        self._queued_since = 0.0
        self._times_since = os.times()
        self._faults_since = 0
        self._worst = (0.0, "no wake-up was late")
        self._collecting_since = 0.0
        self._collected = 0.0  # seconds in the garbage collector, all threads
        self._collected_since = 0.0

    @property
    def longest(self) -> float:
        return max(self.lateness, default=0.0)

    @property
    def worst(self) -> str:
        """What the latest wake-up was made of, for a failing test to say."""
        return self._worst[1]

    async def __aenter__(self) -> LoopStalls:
        gc.collect()
        gc.freeze()
        gc.callbacks.append(self._collecting)
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
        self._record()
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        gc.callbacks.remove(self._collecting)
        gc.unfreeze()

    def _collecting(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting_since = time.perf_counter()
        else:
            self._collected += time.perf_counter() - self._collecting_since

    async def _sleep(self) -> None:
        while True:
            self._asleep_since, self._cpu_since = time.perf_counter(), time.process_time()
            self._queued_since = run_delay()
            self._times_since, self._faults_since = os.times(), _page_faults()
            self._collected_since = self._collected
            await asyncio.sleep(PERIOD)
            self._record()

    def _record(self) -> None:
        wall = time.perf_counter() - self._asleep_since - PERIOD
        queued = run_delay() - self._queued_since
        spent = time.process_time() - self._cpu_since
        stall = max(0.0, min(wall - queued, spent))
        self.lateness.append(stall)
        if stall > self._worst[0]:
            now = os.times()
            user, system = now.user - self._times_since.user, now.system - self._times_since.system
            faults = _page_faults() - self._faults_since
            collected = self._collected - self._collected_since
            self._worst = (stall, (
                f"{stall * 1000:.1f} ms: woke {wall * 1000:.1f} ms late, {queued * 1000:.1f} ms "
                f"on the run queue; this process spent {user * 1000:.0f} ms user and "
                f"{system * 1000:.0f} ms system time with {faults} page faults, "
                f"{collected * 1000:.1f} ms in the garbage collector"
            ))  # fmt: skip


def _page_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
