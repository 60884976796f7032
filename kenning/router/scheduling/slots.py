"""One GPU schedule across every router process that shares a Redis.

Each GPU request, after its place in the process's own priority queue, takes a slot lease in
Redis (`kenning.router.state.slot_store`): a sorted set per GPU scored by expiry, at most the
GPU's queue depth members, taken and swept by one Lua script. A held slot is renewed every
``RENEW_EVERY_SECONDS`` and lapses ``SLOT_LEASE_SECONDS`` (3 s) after its process stops
renewing it, so a process killed with ``kill -9`` frees its slots within one lease. Waiters
register with the same expiry, so a priority-0 request waiting at one process keeps lower
priorities at every other process from jumping ahead. A priority-0 claim sets a short marker
that keeps background work off the GPU and publishes ``preempt`` on a pub/sub channel: every
process cancels its background requests on that GPU (they re-run on the CPU, as with one
process), and ``release`` messages wake waiters at once (they also poll every 0.1 s).

Redis unreachable: each process schedules its GPUs alone on its own queue (the depth then
holds per process only), logs it, sets ``kenning_router_shared_slots_up`` to 0 and reports it
in ``/router/status``; Redis is retried at most once per second. When it answers again the next
renewal re-registers every slot this process holds (merging the schedules back).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from kenning.router.scheduling.backends import Lease
from kenning.router.state.metrics import RouterMetrics
from kenning.router.state.slot_store import Grant, RedisSlots, SlotHolder, slot_member
from kenning.router.tasks import cancel_all

logger = logging.getLogger(__name__)
T = TypeVar("T")
SLOT_LEASE_SECONDS = 3.0
RENEW_EVERY_SECONDS = 1.0
POLL_SECONDS = 0.1
RETRY_SECONDS = 1.0
OnPreempt = Callable[[str, str], None]
OnTransition = Callable[[bool, str], None]


class SharedSlots:
    """This process's side of the shared GPU slots (see the module docstring)."""

    def __init__(
        self,
        url: str,
        prefix: str,
        metrics: RouterMetrics,
        on_preempt: OnPreempt,
        on_transition: OnTransition | None = None,
    ) -> None:
        self.process = uuid.uuid4().hex[:12]
        self._redis: Redis = Redis.from_url(
            url, socket_connect_timeout=0.5, socket_timeout=0.5, decode_responses=True
        )
        self._listener: Redis = Redis.from_url(
            url, socket_connect_timeout=0.5, decode_responses=True
        )
        self.store = RedisSlots(self._redis, prefix)
        self.metrics = metrics
        self.on_preempt = on_preempt
        self.on_transition = on_transition
        self.redis_up = True
        self.held: dict[str, tuple[str, str]] = {}  # lease id -> (gpu, member)
        self._retry_at = 0.0
        self._wakeups: dict[str, asyncio.Event] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[Any]] = set()
        self.metrics.shared_slots_up.set(1)

    @property
    def store_name(self) -> str:
        return "redis" if self.redis_up else "local (redis unreachable)"

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._renew_loop()),
            asyncio.create_task(self._listen_loop()),
        ]

    async def stop(self) -> None:
        await cancel_all([*self._tasks, *self._spawned])
        held, self.held = list(self.held.values()), {}
        await self._try(lambda s: _release_all(s, held))
        for client in (self._redis, self._listener):
            with contextlib.suppress(Exception):
                await client.aclose()

    async def acquire_gpu_slot(self, lease: Lease, depth: int, *, patient: bool) -> bool:
        """Hold a slot on ``lease``'s GPU; False: background work should go elsewhere.

        ``patient`` background work (nowhere else to go) waits like everyone else.
        """
        gpu = lease.backend.name
        member = slot_member(lease.priority, lease.preemptible, self.process, lease.id)
        granted = False
        try:
            while True:
                grant = await self._try(
                    lambda s: s.acquire_member(
                        gpu, member, depth, SLOT_LEASE_SECONDS, lease.preemptible
                    )
                )
                if grant is None or grant is Grant.GRANTED:  # None: Redis down, schedule alone
                    self.held[lease.id] = (gpu, member)
                    granted = True
                    return True
                if lease.preemptible and not patient:
                    return False
                await self._wait_release(gpu)
        finally:
            if not granted:  # also a grant whose reply a cancellation cut off
                self._spawn(self._try(lambda s: s.release(gpu, member, SLOT_LEASE_SECONDS)))

    def release(self, lease: Lease) -> None:
        """Give the slot back (in a task: a cancelled request must still free it)."""
        held = self.held.pop(lease.id, None)
        if held is not None:
            gpu, member = held
            self._spawn(self._try(lambda s: s.release(gpu, member, SLOT_LEASE_SECONDS)))
            self._wake(gpu)

    async def claim(self, gpu: str) -> None:
        """A priority-0 request is about to use ``gpu``: keep background work off it."""
        await self._try(lambda s: s.claim(gpu, SLOT_LEASE_SECONDS))

    async def unclaim(self, gpu: str) -> None:
        """An explicit release: background work may use ``gpu`` again right away."""
        await self._try(lambda s: s.unclaim(gpu))

    def announce_preemption(self, gpu: str, reason: str) -> None:
        """Tell every other process to cancel its background requests on ``gpu``."""

        async def publish(store: RedisSlots) -> None:
            holders = await store.holders(gpu)
            victims = [h.member for h in holders if h.preemptible and h.process != self.process]
            message = {"kind": "preempt", "backend": gpu, "from": self.process}
            await store.publish({**message, "victims": victims, "reason": reason})

        self._spawn(self._try(publish))

    async def holders(self, gpu: str) -> list[SlotHolder] | None:
        """Every slot held on ``gpu`` by any process; None while Redis is unreachable."""
        return await self._try(lambda s: s.holders(gpu))

    # ---- internals ---------------------------------------------------------------------
    async def _wait_release(self, gpu: str) -> None:
        event = self._wakeups.setdefault(gpu, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(POLL_SECONDS):
                await event.wait()
        event.clear()

    def _wake(self, gpu: str) -> None:
        self._wakeups.setdefault(gpu, asyncio.Event()).set()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY_SECONDS)
            await self._try(self._renew_held, retry_now=True)

    async def _renew_held(self, store: RedisSlots) -> None:
        if self.held:
            await store.renew(list(self.held.values()), SLOT_LEASE_SECONDS)
        else:  # still notice Redis going away (and back) while idle
            await store.ping()

    async def _listen_loop(self) -> None:
        while True:
            try:
                async with self._listener.pubsub() as pubsub:
                    await pubsub.subscribe(self.store.channel)
                    while True:
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=1.0
                        )
                        if message is not None:
                            self._on_message(str(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis gone: `_try` reports it; listen again once it is back
                await asyncio.sleep(RETRY_SECONDS)

    def _on_message(self, data: str) -> None:
        try:
            message = json.loads(data)
            gpu = str(message["backend"])
        except (ValueError, KeyError, TypeError):
            logger.warning("router slots: ignoring malformed message %r", data[:200])
            return
        if message.get("kind") == "preempt" and message.get("from") != self.process:
            self.on_preempt(gpu, f"priority-0 request at another process: {message.get('reason')}")
        self._wake(gpu)

    async def _try(
        self, op: Callable[[RedisSlots], Awaitable[T]], *, retry_now: bool = False
    ) -> T | None:
        """Run ``op`` on Redis; on failure fall back (None) and retry Redis a second later."""
        if not retry_now and time.monotonic() < self._retry_at:
            return None
        try:
            if not self.redis_up:  # merge: slots taken while alone count again at once
                await self.store.renew(list(self.held.values()), SLOT_LEASE_SECONDS)
            result = await op(self.store)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:  # schedule alone
            self._retry_at = time.monotonic() + RETRY_SECONDS
            if self.redis_up:
                self.redis_up = False
                self.metrics.shared_slots_up.set(0)
                logger.warning(
                    "router slots: redis unreachable, each process schedules its GPUs alone: %s",
                    exc,
                )
                self._notify(False, str(exc))
            return None
        except Exception:  # not an outage (a script or reply bug): said loudly, not hidden
            logger.exception("router slots: a redis call failed; scheduling this step alone")
            return None
        if not self.redis_up:
            self.redis_up = True
            self.metrics.shared_slots_up.set(1)
            logger.info(
                "router slots: redis reachable again, %d held slots re-registered", len(self.held)
            )
            self._notify(True, "slots shared again")
        return result

    def _notify(self, up: bool, detail: str) -> None:
        if self.on_transition is not None:
            self.on_transition(up, detail)


async def _release_all(store: RedisSlots, held: list[tuple[str, str]]) -> None:
    for gpu, member in held:
        await store.release(gpu, member, SLOT_LEASE_SECONDS)
