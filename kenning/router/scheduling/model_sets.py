"""Model-set swaps on a GPU: cancel background work, unload, then preload the target set.

The order matters because Ollama does not unload a model while requests run on it: an
unload sent first would wait behind the very background requests that block the swap.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from kenning.router.config import RouterSettings
from kenning.router.errors import BackendFailure
from kenning.router.scheduling.backends import Backend
from kenning.router.scheduling.policy import ModelSet
from kenning.router.scheduling.scheduler import Scheduler
from kenning.router.state.events import EventHub, EventKind, RouterEvent
from kenning.router.state.metrics import RouterMetrics
from kenning.router.state.state import ResilientState
from kenning.router.upstream.upstream import post_json, send_buffered

logger = logging.getLogger(__name__)
_POLL_SECONDS = 0.02


class ModelSets:
    """Keeps each GPU holding the set the router wants, one swap per GPU at a time."""

    def __init__(
        self,
        settings: RouterSettings,
        scheduler: Scheduler,
        state: ResilientState,
        events: EventHub,
        metrics: RouterMetrics,
    ) -> None:
        self.settings = settings
        self.scheduler = scheduler
        self.state = state
        self.events = events
        self.metrics = metrics
        self.owner = uuid.uuid4().hex
        self._locks: dict[str, asyncio.Lock] = {}

    def models_of(self, model_set: ModelSet) -> list[str]:
        if model_set is ModelSet.ORCHESTRATOR:
            return list(self.settings.orchestrator_models)
        return list(self.settings.background_models)

    async def ensure(self, gpu: Backend, target: ModelSet) -> None:
        """Return once ``gpu`` holds ``target``, swapping if needed."""
        if gpu.holds is target and not gpu.swapping:
            return
        async with self._locks.setdefault(gpu.name, asyncio.Lock()):
            if gpu.holds is target:
                return
            await self._swap(gpu, target)

    async def _swap(self, gpu: Backend, target: ModelSet) -> None:
        started = time.monotonic()
        gpu.swapping = True
        self.events.publish(RouterEvent(EventKind.SWAP_STARTED, gpu.name, {"target": target}))
        lock = f"swap:{gpu.name}"
        timeout = self.settings.swap_timeout_seconds
        try:
            if not await self.state.acquire_lock(lock, self.owner, timeout):
                await self._await_other_process(gpu, target, started + timeout)
                return
            try:
                detail = await self._run_swap(gpu, target, started + timeout)
            finally:
                await self.state.release_lock(lock, self.owner)
            gpu.set_holds(target)
            await self.state.put_set(gpu.name, target)
            self.metrics.swaps.labels(gpu.name, target).inc()
            detail.update(target=target, seconds=round(time.monotonic() - started, 3))
            self.events.publish(RouterEvent(EventKind.SWAP_FINISHED, gpu.name, detail))
        except (BackendFailure, TimeoutError) as exc:
            # The role changes anyway so routing stays consistent; models load on demand.
            gpu.set_holds(target)
            logger.warning("router swap of %s to %s incomplete: %s", gpu.name, target, exc)
            detail = {"target": target, "error": str(exc)}
            self.events.publish(RouterEvent(EventKind.SWAP_FAILED, gpu.name, detail))
        finally:
            gpu.swapping = False

    async def _run_swap(self, gpu: Backend, target: ModelSet, deadline: float) -> dict[str, object]:
        victims = self.scheduler.preempt_background(gpu, reason=f"swap to {target}")
        loop_deadline = asyncio.get_running_loop().time() + max(0.0, deadline - time.monotonic())
        await self.scheduler.drain(victims, loop_deadline)
        other = ModelSet.BACKGROUND if target is ModelSet.ORCHESTRATOR else ModelSet.ORCHESTRATOR
        keep = set(self.models_of(target))
        unload = [
            m for m in await self._loaded(gpu) if m in self.models_of(other) and m not in keep
        ]
        for model in unload:
            await post_json(
                gpu.client, gpu.name, "/api/generate", {"model": model, "keep_alive": 0}
            )
        await self._wait_unloaded(gpu, unload, deadline)
        loaded = set(await self._loaded(gpu))
        preload = [m for m in self.models_of(target) if m not in loaded]
        for model in preload:
            await self._preload(gpu, model)
        return {"cancelled": len(victims), "unloaded": unload, "preloaded": preload}

    async def _await_other_process(self, gpu: Backend, target: ModelSet, deadline: float) -> None:
        """Another Kenning process is swapping this GPU: adopt its result when it lands."""
        while time.monotonic() < deadline:
            if (await self.state.get_sets()).get(gpu.name) == target:
                gpu.set_holds(target)
                return
            await asyncio.sleep(_POLL_SECONDS * 5)
        raise TimeoutError(f"another process did not finish swapping {gpu.name}")

    async def _loaded(self, gpu: Backend) -> list[str]:
        answer = await send_buffered(gpu.client, gpu.name, "GET", "/api/ps")
        if answer.status != 200:
            return []
        return [str(m.get("model") or m.get("name")) for m in answer.json().get("models", [])]

    async def _wait_unloaded(self, gpu: Backend, models: list[str], deadline: float) -> None:
        while models:
            loaded = set(await self._loaded(gpu))
            if not loaded.intersection(models):
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{sorted(loaded & set(models))} still loaded on {gpu.name}")
            await asyncio.sleep(_POLL_SECONDS)

    async def _preload(self, gpu: Backend, model: str) -> None:
        show = await post_json(gpu.client, gpu.name, "/api/show", {"model": model})
        capabilities = show.json().get("capabilities", []) if show.status == 200 else []
        keep_alive = self.settings.preload_keep_alive
        if "completion" in capabilities or not capabilities:
            payload: dict[str, object] = {"model": model, "keep_alive": keep_alive}
            answer = await post_json(gpu.client, gpu.name, "/api/generate", payload)
        else:
            payload = {"model": model, "input": "", "keep_alive": keep_alive}
            answer = await post_json(gpu.client, gpu.name, "/api/embed", payload)
        if answer.status != 200:
            logger.warning("router preload of %s on %s: status %s", model, gpu.name, answer.status)
