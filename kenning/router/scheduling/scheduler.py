"""Placement and slots: which backend a request queues on, and preemption of background work."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager

from kenning.router.errors import NoBackendAvailable
from kenning.router.scheduling.backend_queue import Rerouted
from kenning.router.scheduling.backends import Backend, BackendPool, Lease
from kenning.router.scheduling.policy import PriorityDecision, place, preemption_victims
from kenning.router.scheduling.slots import SharedSlots
from kenning.router.state.events import EventHub, EventKind, RouterEvent
from kenning.router.state.metrics import RouterMetrics

ClaimHook = Callable[[Backend], Awaitable[None]]


class Scheduler:
    """Gives each request a `Lease` on a backend, honouring the policy and the queues.

    With ``slots`` (shared through Redis) a GPU lease also holds one of the GPU's slots
    across every process; see `slots`.
    """

    def __init__(self, pool: BackendPool, events: EventHub, metrics: RouterMetrics) -> None:
        self.pool = pool
        self.events = events
        self.metrics = metrics
        self.claim_hook: ClaimHook | None = None
        self.slots: SharedSlots | None = None

    @asynccontextmanager
    async def lease(
        self, decision: PriorityDecision, exclude: Iterable[str] = ()
    ) -> AsyncIterator[Lease]:
        """Hold a slot on the chosen backend for the body of the ``async with``."""
        lease = await self._take(decision, set(exclude))
        try:
            yield lease
        finally:
            self._drop(lease)

    async def _take(self, decision: PriorityDecision, exclude: set[str]) -> Lease:
        avoid: set[str] = set()  # GPUs whose shared slots sent this background work away
        patient = False
        while True:
            try:
                backend = await self._acquire_place(decision, exclude | avoid)
            except NoBackendAvailable:
                if not avoid:
                    raise
                avoid.clear()
                patient = True  # nowhere else to go: wait for the GPU like everyone else
                continue
            lease = Lease(backend, decision.priority, decision.preemptible)
            backend.running[lease.id] = lease
            self._gauge(backend)
            if await self._share(lease, patient):
                return lease
            self._drop(lease)
            avoid.add(backend.name)

    async def _share(self, lease: Lease, patient: bool) -> bool:
        """Take the GPU's shared slot; False when background work should go elsewhere."""
        if self.slots is None or not lease.backend.gpu:
            return True
        task = asyncio.ensure_future(
            self.slots.acquire_gpu_slot(lease, lease.backend.queue.depth, patient=patient)
        )
        lease.attach(task)  # a preemption while waiting sends this request elsewhere
        try:
            return await task
        except asyncio.CancelledError:
            if lease.preempted and not _cancelling():
                return False
            self._drop(lease)
            raise
        except BaseException:
            self._drop(lease)
            raise

    def _drop(self, lease: Lease) -> None:
        backend = lease.backend
        if backend.running.pop(lease.id, None) is None:
            return
        backend.queue.release()
        if self.slots is not None:
            self.slots.release(lease)
        lease.released.set()
        self._gauge(backend)

    async def _acquire_place(self, decision: PriorityDecision, exclude: set[str]) -> Backend:
        while True:
            placement = place(decision, self.pool.views(exclude))
            if placement is None:
                raise NoBackendAvailable("no healthy backend may take this request")
            backend = self.pool.by_name[placement.backend]
            if placement.claim and self.claim_hook is not None:
                await self.claim_hook(backend)
                if not backend.healthy:
                    continue
            self._gauge(backend, waiting_delta=1)
            try:
                await backend.queue.acquire_place(
                    decision.priority, preemptible=decision.preemptible
                )
            except Rerouted:
                continue
            finally:
                self._gauge(backend)
            return backend

    def preempt_background(
        self, backend: Backend, reason: str, *, broadcast: bool = True
    ) -> list[Lease]:
        """Cancel background requests running on a GPU and send its background waiters away;
        with shared slots ``broadcast`` tells every other process to do the same.

        Returns every preempted lease still holding a slot here, so callers can drain them.
        """
        if broadcast and backend.gpu and self.slots is not None:
            self.slots.announce_preemption(backend.name, reason)
        fresh = {
            lease.id: lease.priority for lease in backend.running.values() if not lease.preempted
        }
        victims = [backend.running[rid] for rid in preemption_victims(fresh)]
        for lease in victims:
            lease.preempt()
        rerouted = backend.queue.reroute(preemptible_only=True)
        if victims or rerouted:
            self.metrics.preemptions.labels(backend.name).inc(len(victims))
            detail = {"cancelled": len(victims), "rerouted_waiting": rerouted, "reason": reason}
            self.events.publish(RouterEvent(EventKind.PREEMPTION, backend.name, detail))
        return [lease for lease in backend.running.values() if lease.preempted]

    async def drain(self, leases: list[Lease], deadline: float) -> None:
        """Wait until cancelled leases have really stopped (Ollama will not unload before);
        ``deadline`` is a ``loop.time()`` value."""
        if leases:
            waits = [asyncio.ensure_future(lease.released.wait()) for lease in leases]
            try:
                async with asyncio.timeout_at(deadline):
                    await asyncio.gather(*waits)
            except TimeoutError:
                for task in waits:
                    task.cancel()

    def _gauge(self, backend: Backend, waiting_delta: int = 0) -> None:
        self.metrics.queue_depth.labels(backend.name).set(backend.queue.waiting + waiting_delta)
        self.metrics.inflight.labels(backend.name).set(backend.queue.inflight)


def _cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
