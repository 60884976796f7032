"""The `Router`: composes pool, scheduler, model sets, leases, state, relay; runs the loops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from kenning.router.client import RouterClient
from kenning.router.config import RouterSettings
from kenning.router.errors import NoBackendAvailable
from kenning.router.relay import Relay
from kenning.router.scheduling.backends import Backend, BackendPool
from kenning.router.scheduling.leases import SessionLeases
from kenning.router.scheduling.model_sets import ModelSets
from kenning.router.scheduling.policy import (
    ModelSet,
    Priority,
    PriorityDecision,
    PrioritySource,
    desired_sets,
    mode_of,
    place,
)
from kenning.router.scheduling.scheduler import Scheduler
from kenning.router.scheduling.sessions import KEYLESS, SessionOwner
from kenning.router.scheduling.slots import SLOT_LEASE_SECONDS, SharedSlots
from kenning.router.state.events import EventHub, EventKind, RouterEvent
from kenning.router.state.metrics import RouterMetrics
from kenning.router.state.redis_state import RedisState
from kenning.router.state.state import ResilientState
from kenning.router.tasks import cancel_all
from kenning.router.upstream.upstream import Buffered, send_buffered

logger = logging.getLogger(__name__)
_CRITICAL = PriorityDecision(Priority.CRITICAL, PrioritySource.HEADER)


class Router:
    """One router instance; `start()`/`stop()` are called by the app's lifespan.

    Example: ``router = Router(settings); await router.start(); ...; await router.stop()``.
    """

    def __init__(self, settings: RouterSettings, *, redis_url: str | None = None) -> None:
        self.settings = settings
        self.events = EventHub(settings.event_buffer)
        self.metrics = RouterMetrics()
        url = redis_url or settings.redis_url
        shared = RedisState(url, settings.state_prefix) if url else None
        self.state = ResilientState(shared, self._on_state_transition)
        self.pool = BackendPool(settings, self.events, self.metrics, self._on_health_change)
        self.scheduler = Scheduler(self.pool, self.events, self.metrics)
        self.sets = ModelSets(settings, self.scheduler, self.state, self.events, self.metrics)
        self.leases = SessionLeases(settings, self.state)
        self.relay = Relay(settings, self.pool, self.scheduler, self.leases, self.metrics)
        self.scheduler.claim_hook = self._claim_critical
        self.slots = (
            SharedSlots(url, settings.state_prefix, self.metrics, self._preempt_here)
            if url
            else None
        )
        self.scheduler.slots = self.slots
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    # ---- lifecycle -------------------------------------------------------------------
    async def start(self) -> None:
        await self.pool.start()
        if self.slots is not None:
            await self.slots.start()
        await self.reconcile()
        self._loop_task = asyncio.create_task(self._reconcile_loop())

    async def stop(self) -> None:
        await cancel_all([*self._tasks, *([self._loop_task] if self._loop_task else [])])
        if self.slots is not None:
            await self.slots.stop()
        await self.pool.stop()
        await self.state.close()

    def client(self) -> RouterClient:
        """The in-process client Kenning's embedder uses."""
        return RouterClient(self.relay)

    @property
    def model_sets(self) -> dict[str, list[str]]:
        """The models each set holds: ``orchestrator`` (swapped in for critical work) and
        ``background`` (held otherwise)."""
        return {
            "orchestrator": list(self.settings.orchestrator_models),
            "background": list(self.settings.background_models),
        }

    async def installed_models(self) -> frozenset[str]:
        """The models the healthy backends hold (each one's ``/api/tags``); raises
        ``NoBackendAvailable`` when no backend is healthy or none answers."""
        backends = self.pool.healthy()
        answers = await asyncio.gather(
            *(
                send_buffered(b.client, b.name, "GET", "/api/tags", read_timeout=5)
                for b in backends
            ),
            return_exceptions=True,
        )
        listed = [a.json() for a in answers if isinstance(a, Buffered) and a.status == 200]
        if not listed:
            raise NoBackendAvailable(f"none of {len(backends)} healthy backends listed its models")
        return frozenset(
            name
            for body in listed
            for model in body.get("models", [])
            if (name := model.get("name") or model.get("model"))
        )

    def events_stream(self) -> AsyncIterator[RouterEvent]:
        """Router events from now on (preemptions, swaps, backend health, state store)."""
        return self.events.subscribe()

    # ---- priority-0 claims, announce, release -----------------------------------------
    async def _claim_critical(self, gpu: Backend) -> None:
        """Before P0 queues on a GPU: cancel background work there, hold the orchestrator set.

        The request has renewed its client's traffic lease already (`Relay`): the scheduler
        calling this knows the priority, not whose request it is.
        """
        if self.slots is not None:
            await self.slots.claim(gpu.name)
        self.scheduler.preempt_background(gpu, reason="priority-0 request")
        await self.sets.ensure(gpu, ModelSet.ORCHESTRATOR)

    async def announce(self, session: str | None, owner: SessionOwner = KEYLESS) -> dict[str, Any]:
        """Lease the orchestrator set for ``owner``'s session (a fresh name when None);
        returns once the GPU holds it."""
        session = (await self.leases.announce(session, owner)).name
        placement = place(_CRITICAL, self.pool.views())
        backend = self.pool.by_name[placement.backend] if placement else None
        if backend is not None and backend.gpu:
            self.leases.touch_traffic(owner)
            await self._claim_critical(backend)
        self.events.publish(
            RouterEvent(EventKind.ANNOUNCE, backend.name if backend else None, {"session": session})
        )
        return {
            "status": "ready" if backend is not None else "unavailable",
            "session": session,
            "backend": backend.name if backend else None,
            "set": str(ModelSet.ORCHESTRATOR) if backend is not None and backend.gpu else None,
            "degraded": backend is not None and not backend.gpu,
            "lease_seconds": self.settings.auto_release_seconds,
        }

    async def release(
        self,
        session: str | None,
        owner: SessionOwner = KEYLESS,
        *,
        all_sessions: bool = False,
    ) -> dict[str, Any]:
        """End ``owner``'s session named ``session`` (None: every one its key announced), or
        with ``all_sessions`` anyone's (`Session.ended_by`), and ``owner``'s client's traffic
        lease (`SessionLeases.release`); a single GPU swaps back to the background set unless
        other leases remain, another client's included.

        The answer is the same whether or not such a session existed, so a caller cannot
        probe for another client's session names.
        """
        await self.leases.release(session, owner, all_sessions=all_sessions)
        # The slot claims keep background work off the GPU for whoever holds it: lifted early
        # only when this release left no one holding it, never under another client's hold.
        if self.slots is not None and not await self.leases.critical_active():
            for gpu in self.pool.gpus:
                await self.slots.unclaim(gpu.name)
        self.events.publish(RouterEvent(EventKind.RELEASE, None, {"session": session}))
        await self.reconcile(wait=True)
        remaining = (await self.leases.live()).count
        return {"status": "released", "session": session, "remaining_leases": remaining}

    # ---- reconciliation --------------------------------------------------------------
    async def reconcile(self, *, wait: bool = False) -> None:
        """Adopt sets other processes swapped to, then swap GPUs whose set is not the wanted one."""
        read_at = time.monotonic()
        shared = await self.state.get_sets()
        for gpu in self.pool.gpus:
            adopted = shared.get(gpu.name)
            fresh = gpu.holds_since < read_at and not gpu.swapping
            if fresh and adopted in set(ModelSet) and adopted != gpu.holds:
                gpu.set_holds(ModelSet(str(adopted)))
        critical = await self.leases.critical_active()
        swaps = []
        for name, target in desired_sets(self.pool.views(), critical).items():
            gpu = self.pool.by_name[name]
            if gpu.holds is not target and not gpu.swapping:
                swaps.append(self._spawn(self.sets.ensure(gpu, target)))
        if wait and swaps:
            await asyncio.gather(*swaps, return_exceptions=True)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _tick(self) -> float:
        s = self.settings
        return max(0.05, min(1.0, s.auto_release_seconds / 4, s.health_interval_seconds))

    async def _reconcile_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel that
                # lands as the event fires, and the loop would then outlive stop().
                async with asyncio.timeout(self._tick()):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.reconcile()
            except Exception:  # the loop must survive anything one pass runs into
                logger.exception("router reconcile pass failed")

    def _on_health_change(self, _: Backend) -> None:
        self._wake.set()

    def _preempt_here(self, gpu: str, reason: str) -> None:
        """Another process preempted background work on ``gpu``: cancel ours there too."""
        backend = self.pool.by_name.get(gpu)
        if backend is not None and backend.gpu:
            self.scheduler.preempt_background(backend, reason, broadcast=False)

    def _on_state_transition(self, up: bool, detail: str) -> None:
        self.events.publish(
            RouterEvent(EventKind.STATE_STORE, None, {"redis_up": up, "detail": detail})
        )

    # ---- status ----------------------------------------------------------------------
    async def status(self) -> dict[str, Any]:
        live = await self.leases.live()
        now = time.time()
        return {
            "mode": str(mode_of(self.pool.views())),
            "state_store": self.state.backend_name,
            "slots": self._slots_status(),
            "critical_inflight": self.leases.critical_inflight,
            "leases": {k: round(v - now, 3) for k, v in live.by_name().items()},
            # Each session once, with whose it is (several clients may use one name).
            "sessions": [
                {
                    "session": held.name,
                    "client": held.client,
                    "keys": list(held.keys),
                    "expires_in": round(held.expires_at - now, 3),
                }
                for held in live.sessions
            ],
            "backends": [await self._backend_status(b) for b in self.pool.backends],
            "recent_events": [e.as_dict() for e in list(self.events.recent)[-20:]],
        }

    def _slots_status(self) -> dict[str, Any]:
        if self.slots is None:
            return {"store": "local", "process": None, "lease_seconds": None}
        return {
            "store": self.slots.store_name,
            "process": self.slots.process,
            "lease_seconds": SLOT_LEASE_SECONDS,
        }

    async def _backend_status(self, b: Backend) -> dict[str, Any]:
        holders = await self.slots.holders(b.name) if self.slots and b.gpu else None
        return {
            "name": b.name,
            "kind": "gpu" if b.gpu else "cpu",
            "url": b.url,
            "healthy": b.healthy,
            "breaker": str(b.breaker.state),
            "last_error": b.last_error,
            "holds": str(b.holds) if b.holds else None,
            "swapping": b.swapping,
            "inflight": b.queue.inflight,
            "waiting": b.queue.waiting,
            "queue_depth": b.queue.depth,
            "vram_budget_mb": b.vram_budget_mb,
            # Every process's slots on this GPU (None: not shared, or Redis unreachable).
            "slots": None
            if holders is None
            else [
                {
                    "process": h.process,
                    "priority": h.priority,
                    "preemptible": h.preemptible,
                    "expires_in": round(h.expires_in, 3),
                    "here": h.process == self.slots.process if self.slots else True,
                }
                for h in holders
            ],
        }
