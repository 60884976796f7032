"""A queue worker: claim slots per lane, lease heartbeats, recovery of expired leases, and
the housekeeping its deps name (``Upkeep``).

Each lane has its own slots, so a full bulk lane never holds up a priority job: the
priority slots only ever claim priority work, and are idle (not borrowed) otherwise. While a
priority job runs, and for ``priority_linger`` seconds after the last one ended, bulk slots
claim nothing new, so the job shares the process only with the bulk jobs already under way.
The linger is for priority work that comes in a run (an agent's notes one after another):
without it the bulk jobs claimed between two priority jobs compete with the next one for
the CPU. It never starves bulk work: without priority work bulk slots claim as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from kenning.domain.queue.backoff import is_operational
from kenning.domain.queue.jobs import JobStatus, Lane, Lease
from kenning.domain.queue.ports import WorkQueue
from kenning.domain.queue.runner import run_job
from kenning.domain.queue.tasks import JobDeps, Upkeep

logger = logging.getLogger("kenning.queue")


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """Slots per lane and lease timing (heartbeats every third of the lease)."""

    priority_slots: int = 2
    bulk_slots: int = 2
    lease_seconds: float = 30.0
    recover_every: float = 10.0
    idle_wait: float = 2.0
    stop_grace: float = 10.0
    priority_linger: float = 0.25

    def slots(self, lane: Lane) -> int:
        return self.priority_slots if lane is Lane.PRIORITY else self.bulk_slots


class Wakeup(Protocol):
    """Wakes idle slots when work may have arrived."""

    def ticket(self, lane: Lane) -> int:
        """Take before looking for work."""
        ...

    async def wait(self, lane: Lane, ticket: int, at_most: float) -> None:
        """Return on a notification since ``ticket`` or after ``at_most`` seconds."""
        ...


class WorkerRegistry(Protocol):
    """Where workers announce they are alive."""

    async def alive(self, worker_id: str, ttl: float) -> None: ...

    async def gone(self, worker_id: str) -> None: ...


# (outcome, seconds) of each job a worker ran: the job's new status in lower case
# (``indexed``, ``failed``, …), ``retry_later``, ``lease_lost``, ``interrupted`` (the
# worker stopped) or ``unrecorded`` (the database went away before the end was written).
JobObserver = Callable[[str, float], None]


def _outcome(status: JobStatus | None) -> str:
    if status is None:
        return "lease_lost"
    return "retry_later" if status is JobStatus.QUEUED else status.value.lower()


def _unobserved(outcome: str, seconds: float) -> None:
    return None


class Worker:
    """Runs jobs of both lanes until ``stop``; any number may share one database."""

    def __init__(
        self,
        queue: WorkQueue,
        deps: JobDeps,
        wakeup: Wakeup,
        registry: WorkerRegistry,
        config: WorkerConfig = WorkerConfig(),
        *,
        worker_id: str | None = None,
        operational: Callable[[BaseException], bool] = is_operational,
        observe: JobObserver | None = None,
    ) -> None:
        self.id = worker_id or f"worker-{uuid.uuid4().hex[:12]}"
        self._observe = observe or _unobserved
        self._queue, self._deps, self._wakeup = queue, deps, wakeup
        self._registry, self._config, self._operational = registry, config, operational
        self._held: dict[str, Lease] = {}
        self._stopping = asyncio.Event()
        self._slots: list[asyncio.Task[None]] = []
        self._chores: list[asyncio.Task[None]] = []
        self._urgent = 0  # priority jobs running now
        self._calm = asyncio.Event()
        self._calm.set()
        self._urgent_ended = -float("inf")  # time.monotonic() when the last one ended

    @property
    def running(self) -> bool:
        """True while started and every slot and chore is alive (none crashed)."""
        tasks = [*self._slots, *self._chores]
        return bool(tasks) and not self._stopping.is_set() and not any(t.done() for t in tasks)

    @property
    def held(self) -> int:
        """How many jobs this worker runs now."""
        return len(self._held)

    async def start(self) -> None:
        """Requeue jobs whose worker died, announce this one, start the slots."""
        await self._recover()
        await self._registry.alive(self.id, self._config.lease_seconds)
        for lane in Lane:
            for n in range(self._config.slots(lane)):
                name = f"{self.id}-{lane.value.lower()}-{n}"
                self._slots.append(asyncio.create_task(self._slot(lane), name=name))
        self._chores = [
            asyncio.create_task(self._heartbeats(), name=f"{self.id}-heartbeat"),
            asyncio.create_task(self._recovery(), name=f"{self.id}-recovery"),
            *(
                asyncio.create_task(self._upkeep(upkeep), name=f"{self.id}-{upkeep.name}")
                for upkeep in self._deps.upkeep
            ),
        ]
        logger.info("queue.worker.started", extra={"worker_id": self.id})

    async def stop(self) -> None:
        """Stop claiming, let running jobs finish within the grace time, then interrupt
        the rest and put them back in the queue."""
        self._stopping.set()
        if self._slots:
            _, pending = await asyncio.wait(self._slots, timeout=self._config.stop_grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        for task in self._chores:
            task.cancel()
        await asyncio.gather(*self._chores, return_exceptions=True)
        for lease in list(self._held.values()):
            with contextlib.suppress(Exception):
                await self._queue.release(lease)
        self._held.clear()
        await self._registry.gone(self.id)
        logger.info("queue.worker.stopped", extra={"worker_id": self.id})

    async def _slot(self, lane: Lane) -> None:
        while not self._stopping.is_set():
            if lane is Lane.BULK and self._bulk_paused():
                # Priority jobs of this worker run, or just ran: take no new bulk job until
                # they end and the linger is over (bulk jobs already running continue).
                await self._idle_priority_wait()
                continue
            ticket = self._wakeup.ticket(lane)
            try:
                owner = f"{self.id}/{uuid.uuid4().hex[:12]}"
                claimed = await self._queue.claim(lane, owner, self._config.lease_seconds)
            except Exception:
                logger.warning("queue.claim.failed", exc_info=True)
                await self._pause(self._config.idle_wait)
                continue
            if claimed is None:
                await self._wakeup.wait(lane, ticket, self._config.idle_wait)
                continue
            self._held[claimed.job.id] = claimed.lease
            if lane is Lane.PRIORITY:
                self._urgent += 1
                self._calm.clear()
            started = time.perf_counter()
            outcome = "unrecorded"
            try:
                status = await run_job(claimed, self._queue, self._deps, self._operational)
                outcome = _outcome(status)
            except asyncio.CancelledError:
                outcome = "interrupted"
                # Stopping: the job's transaction rolled back; hand it to another worker now.
                with contextlib.suppress(Exception):
                    await self._queue.release(claimed.lease)
                raise
            except Exception:
                # Could not even record the outcome (database away): the lease expires and
                # the job runs again; nothing is lost.
                logger.warning("queue.job.unrecorded", extra={"job_id": claimed.job.id})
            finally:
                self._observe(outcome, time.perf_counter() - started)
                self._held.pop(claimed.job.id, None)
                if lane is Lane.PRIORITY:
                    self._urgent -= 1
                    self._urgent_ended = time.monotonic()
                    if not self._urgent:
                        self._calm.set()

    def _bulk_paused(self) -> bool:
        lingering = time.monotonic() - self._urgent_ended < self._config.priority_linger
        return bool(self._urgent) or lingering

    async def _idle_priority_wait(self) -> None:
        if not self._urgent:  # lingering: until it is over (or the worker stops)
            left = self._urgent_ended + self._config.priority_linger - time.monotonic()
            await self._pause(min(max(left, 0.0), self._config.idle_wait))
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._calm.wait(), self._config.idle_wait)

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    async def _heartbeats(self) -> None:
        every = self._config.lease_seconds / 3
        while not self._stopping.is_set():
            await self._pause(every)
            await self._registry.alive(self.id, self._config.lease_seconds)
            leases = list(self._held.values())
            try:
                kept = await self._queue.heartbeat(leases, self._config.lease_seconds)
            except Exception:
                logger.warning("queue.heartbeat.failed", exc_info=True)
                continue
            for lease in leases:
                if lease.job_id not in kept and lease.job_id in self._held:
                    logger.warning("queue.lease.lost", extra={"job_id": lease.job_id})

    async def _upkeep(self, upkeep: Upkeep) -> None:
        while not self._stopping.is_set():
            await self._pause(upkeep.every)
            if self._stopping.is_set():
                return
            try:
                await upkeep.run()
            except Exception:  # the database away: the next round tries again
                logger.warning("queue.upkeep.failed", extra={"upkeep": upkeep.name}, exc_info=True)

    async def _recovery(self) -> None:
        while not self._stopping.is_set():
            await self._pause(self._config.recover_every)
            await self._recover()

    async def _recover(self) -> None:
        try:
            count = await self._queue.recover_expired()
        except Exception:
            logger.warning("queue.recover.failed", exc_info=True)
            return
        if count:
            logger.info("queue.leases.recovered", extra={"jobs": count, "worker_id": self.id})
