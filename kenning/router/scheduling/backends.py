"""The backend pool: connections, queue, breaker and health loop per Ollama instance."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from kenning.router.config import RouterSettings
from kenning.router.errors import BackendFailure
from kenning.router.scheduling.backend_queue import BackendQueue
from kenning.router.scheduling.policy import BackendView, ModelSet, Priority
from kenning.router.state.events import EventHub, EventKind, RouterEvent
from kenning.router.state.metrics import RouterMetrics
from kenning.router.tasks import cancel_all
from kenning.router.upstream.breaker import CircuitBreaker
from kenning.router.upstream.upstream import make_client, send_buffered

logger = logging.getLogger(__name__)
_lease_ids = itertools.count(1)


class Lease:
    """A request's slot on a backend; preempting it cancels the attached upstream task."""

    def __init__(self, backend: Backend, priority: Priority, preemptible: bool) -> None:
        self.id = f"l{next(_lease_ids)}"
        self.backend = backend
        self.priority = priority
        self.preemptible = preemptible
        self.preempted = False
        self.released = asyncio.Event()
        self._task: asyncio.Future[Any] | None = None

    def attach(self, task: asyncio.Future[Any]) -> None:
        self._task = task
        if self.preempted:
            task.cancel()

    def preempt(self) -> None:
        self.preempted = True
        if self._task is not None and not self._task.done():
            self._task.cancel()


class Backend:
    """One Ollama instance as the router sees it."""

    def __init__(
        self,
        name: str,
        url: str,
        *,
        gpu: bool,
        depth: int,
        settings: RouterSettings,
        vram_budget_mb: int = 0,
    ) -> None:
        self.name = name
        self.url = url
        self.gpu = gpu
        self.vram_budget_mb = vram_budget_mb
        self.client = make_client(
            url, settings.connect_timeout_seconds, settings.read_timeout_seconds
        )
        self.queue = BackendQueue(depth)
        self.breaker = CircuitBreaker(
            settings.breaker_failure_threshold, settings.breaker_reset_seconds
        )
        self.running: dict[str, Lease] = {}
        self.holds: ModelSet | None = None
        self.holds_since = 0.0
        self.swapping = False
        self.last_error: str | None = None
        self.probe_now = asyncio.Event()
        self.was_healthy = True

    def set_holds(self, model_set: ModelSet) -> None:
        self.holds = model_set
        self.holds_since = time.monotonic()

    @property
    def healthy(self) -> bool:
        return self.breaker.allows_traffic()

    def view(self, *, excluded: bool = False) -> BackendView:
        return BackendView(
            name=self.name,
            gpu=self.gpu,
            healthy=self.healthy and not excluded,
            inflight=self.queue.inflight,
            waiting=self.queue.waiting,
            depth=self.queue.depth,
            holds=self.holds,
            swapping=self.swapping,
        )


class BackendPool:
    """GPUs in configured order, then the CPU backend; health checks with backoff."""

    def __init__(
        self,
        settings: RouterSettings,
        events: EventHub,
        metrics: RouterMetrics,
        on_health_change: Callable[[Backend], None] | None = None,
    ) -> None:
        self.settings = settings
        self.events = events
        self.metrics = metrics
        self.on_health_change = on_health_change
        self.backends: list[Backend] = [
            Backend(
                spec.name,
                spec.url,
                gpu=True,
                depth=spec.queue_depth or settings.queue_depth,
                settings=settings,
                vram_budget_mb=spec.vram_budget_mb,
            )
            for spec in settings.gpu_backends
        ]
        if settings.cpu_backend:
            self.backends.append(
                Backend(
                    settings.cpu_backend_name,
                    settings.cpu_backend,
                    gpu=False,
                    depth=settings.queue_depth,
                    settings=settings,
                )
            )
        self.by_name = {b.name: b for b in self.backends}
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def gpus(self) -> list[Backend]:
        return [b for b in self.backends if b.gpu]

    def views(self, exclude: Iterable[str] = ()) -> list[BackendView]:
        excluded = set(exclude)
        return [b.view(excluded=b.name in excluded) for b in self.backends]

    def healthy(self) -> list[Backend]:
        return [b for b in self.backends if b.healthy]

    async def start(self) -> None:
        """Probe every backend once; one that is down now gets no traffic until it answers."""
        results = await asyncio.gather(*(self._probe(b) for b in self.backends))
        for backend, ok in zip(self.backends, results, strict=True):
            if not ok:
                backend.breaker.trip()
                self._check_transition(backend)
        self._tasks = [asyncio.create_task(self._health_loop(b)) for b in self.backends]

    async def stop(self) -> None:
        await cancel_all(self._tasks)
        await asyncio.gather(*(b.client.aclose() for b in self.backends))

    def record_failure(self, backend: Backend, message: str) -> None:
        backend.last_error = message
        backend.breaker.record_failure()
        backend.probe_now.set()
        self._check_transition(backend)

    def record_success(self, backend: Backend) -> None:
        backend.breaker.record_success()
        self._check_transition(backend)

    def _check_transition(self, backend: Backend) -> None:
        healthy = backend.healthy
        if healthy == backend.was_healthy:
            return
        backend.was_healthy = healthy
        if not healthy:
            backend.queue.reroute(preemptible_only=False)
        logger.warning("router backend %s is now %s", backend.name, _word(healthy))
        detail = {"healthy": healthy, "breaker": str(backend.breaker.state)}
        if backend.last_error and not healthy:
            detail["error"] = backend.last_error
        self.events.publish(RouterEvent(EventKind.BACKEND_HEALTH, backend.name, detail))
        if self.on_health_change is not None:
            self.on_health_change(backend)

    async def _probe(self, backend: Backend) -> bool:
        try:
            answer = await send_buffered(
                backend.client,
                backend.name,
                "GET",
                "/api/version",
                read_timeout=self.settings.connect_timeout_seconds,
            )
            ok = answer.status == 200
            message = f"status {answer.status}"
        except BackendFailure as exc:
            ok, message = False, str(exc)
        if ok:
            self.record_success(backend)
        else:
            self.record_failure(backend, f"health check: {message}")
        return ok

    async def _health_loop(self, backend: Backend) -> None:
        interval = self.settings.health_interval_seconds
        delay = interval
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # not wait_for: see Router._reconcile_loop
                    await backend.probe_now.wait()
            backend.probe_now.clear()
            if not backend.breaker.allows_probe():
                delay = min(interval, self.settings.breaker_reset_seconds)
                continue
            ok = await self._probe(backend)
            cap = self.settings.health_backoff_max_seconds
            delay = interval if ok else min(max(delay * 2, interval), cap)


def _word(healthy: bool) -> str:
    return "healthy" if healthy else "unhealthy"
