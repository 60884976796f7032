"""The per-backend queue: bounded in-flight, priority order, rerouting, cancellation."""

from __future__ import annotations

import asyncio

import pytest

from kenning.router import Priority
from kenning.router.scheduling.backend_queue import BackendQueue, Rerouted


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_p0_is_served_before_earlier_p3_waiters() -> None:
    queue = BackendQueue(depth=1)
    await queue.acquire_place(Priority.BACKGROUND, preemptible=True)
    order: list[str] = []

    async def wait(name: str, priority: Priority) -> None:
        await queue.acquire_place(priority, preemptible=priority is Priority.BACKGROUND)
        order.append(name)

    tasks = [asyncio.create_task(wait(f"p3-{i}", Priority.BACKGROUND)) for i in range(3)]
    await _settle()
    tasks.append(asyncio.create_task(wait("p1", Priority.CODING)))
    tasks.append(asyncio.create_task(wait("p0", Priority.CRITICAL)))
    await _settle()
    assert queue.waiting == 5 and queue.waiting_by_priority() == [0, 1, 3, 3, 3]
    for _ in range(5):
        queue.release()
        await _settle()
    await asyncio.gather(*tasks)
    assert order == ["p0", "p1", "p3-0", "p3-1", "p3-2"]
    assert queue.inflight == 1


async def test_depth_bounds_inflight() -> None:
    queue = BackendQueue(depth=2)
    await queue.acquire_place(Priority.CRITICAL, preemptible=False)
    await queue.acquire_place(Priority.CRITICAL, preemptible=False)
    third = asyncio.create_task(queue.acquire_place(Priority.CRITICAL, preemptible=False))
    await _settle()
    assert not third.done() and queue.inflight == 2
    queue.release()
    await third
    assert queue.inflight == 2


async def test_reroute_releases_background_waiters_only() -> None:
    queue = BackendQueue(depth=1)
    await queue.acquire_place(Priority.CRITICAL, preemptible=False)
    background = asyncio.create_task(queue.acquire_place(Priority.BACKGROUND, preemptible=True))
    coding = asyncio.create_task(queue.acquire_place(Priority.CODING, preemptible=False))
    await _settle()
    assert queue.reroute(preemptible_only=True) == 1
    with pytest.raises(Rerouted):
        await background
    assert queue.waiting == 1
    queue.release()
    await coding
    assert queue.reroute(preemptible_only=False) == 0


async def test_cancelled_waiter_gives_up_its_place() -> None:
    queue = BackendQueue(depth=1)
    await queue.acquire_place(Priority.CRITICAL, preemptible=False)
    waiter = asyncio.create_task(queue.acquire_place(Priority.CRITICAL, preemptible=False))
    await _settle()
    waiter.cancel()
    await _settle()
    queue.release()
    assert queue.inflight == 0 and queue.waiting == 0
