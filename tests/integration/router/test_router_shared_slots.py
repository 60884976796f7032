"""Two routers sharing one Redis schedule one GPU as one router: depth and preemption hold.

Uses the Redis at ``KENNING_REDIS_URL`` (the local stack's by default) under a unique prefix.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from redis.asyncio import Redis

from kenning.router.demo import FakeOllama, fake_tokens
from kenning.router.scheduling.slots import SLOT_LEASE_SECONDS
from kenning.router.state.slot_store import RedisSlots, slot_member
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    ORCHESTRATOR_MODEL,
    RouterFactory,
    router_settings,
    wait_until,
)

P0 = {"X-Ollama-Priority": "0"}
P3 = {"X-Ollama-Priority": "3"}


@pytest.fixture
async def shared_redis() -> AsyncIterator[tuple[str, str]]:
    """(url, unique key prefix); the prefix's keys are deleted afterwards."""
    url = os.environ.get("KENNING_REDIS_URL", "redis://127.0.0.1:6380/0")
    prefix = f"kenning:router:slots-test:{uuid.uuid4().hex[:8]}:"
    yield url, prefix
    client: Redis = Redis.from_url(url)
    keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


def peak_concurrency(fake: FakeOllama) -> int:
    """Most model requests the fake ran at one moment, from its own records (a preload, an
    empty-prompt generate, is recorded done with no end time: it took no time)."""
    spans = list(fake.records)
    ends = [r.finished or (1e18 if r.outcome == "running" else r.started) for r in spans]
    edges = [(r.started, 1) for r in spans] + [(end, -1) for end in ends]
    peak = current = 0
    for _, step in sorted(edges, key=lambda e: (e[0], e[1])):
        current += step
        peak = max(peak, current)
    return peak


async def test_p0_at_one_router_preempts_p3_running_through_the_other(
    fake_ollama_factory: FakeFactory,
    router_factory: RouterFactory,
    shared_redis: tuple[str, str],
) -> None:
    url, prefix = shared_redis
    gpu = fake_ollama_factory("gpu0", token_latency=0.15, tokens=8)
    cpu = fake_ollama_factory("cpu")
    settings = router_settings([gpu], cpu, queue_depth=1, state_prefix=prefix)
    first = await router_factory(settings, redis_url=url)
    second = await router_factory(settings, redis_url=url)
    async with httpx.AsyncClient(timeout=20) as http:
        body = {"model": ORCHESTRATOR_MODEL, "prompt": "summarise", "stream": False}
        background = asyncio.create_task(
            http.post(f"{first.url}/api/generate", json=body, headers=P3)
        )
        await wait_until(lambda: gpu.count("/api/generate", outcome="running") == 1)
        await asyncio.sleep(0.6)
        status = (await http.get(f"{second.url}/router/status")).json()
        held = next(b for b in status["backends"] if b["name"] == "gpu0")["slots"]
        assert [(s["priority"], s["here"]) for s in held] == [(3, False)]
        assert status["slots"]["store"] == "redis"
        assert status["slots"]["lease_seconds"] == SLOT_LEASE_SECONDS

        chat = {"model": ORCHESTRATOR_MODEL, "messages": [{"role": "user", "content": "hi"}]}
        answer = await http.post(
            f"{second.url}/api/chat", json={**chat, "stream": False}, headers=P0
        )
        assert answer.headers["x-kenning-backend"] == "gpu0"
        assert answer.json()["message"]["content"] == "".join(fake_tokens("hi", 8))
        rerun = await background
    assert rerun.headers["x-kenning-backend"] == "cpu"
    assert rerun.json()["response"] == "".join(fake_tokens("summarise", 8))
    assert gpu.count("/api/generate", outcome="cancelled") == 1
    assert cpu.count("/api/generate", outcome="ok") == 1
    assert gpu.count("/api/chat", outcome="ok") == 1
    assert peak_concurrency(gpu) == 1


async def test_the_depth_holds_across_routers(
    fake_ollama_factory: FakeFactory,
    router_factory: RouterFactory,
    shared_redis: tuple[str, str],
) -> None:
    url, prefix = shared_redis
    gpu = fake_ollama_factory("gpu0", token_latency=0.05, tokens=4)
    settings = router_settings([gpu], None, queue_depth=1, state_prefix=prefix)
    routers = [await router_factory(settings, redis_url=url) for _ in range(2)]
    chat = {"model": ORCHESTRATOR_MODEL, "messages": [{"role": "user", "content": "x"}]}
    async with httpx.AsyncClient(timeout=20) as http:
        answers = await asyncio.gather(
            *(
                http.post(f"{r.url}/api/chat", json={**chat, "stream": False}, headers=P0)
                for r in routers * 3
            )
        )
    assert [a.status_code for a in answers] == [200] * 6
    assert gpu.count("/api/chat", outcome="ok") == 6
    assert peak_concurrency(gpu) == 1


async def test_a_slot_of_a_dead_process_lapses_within_one_lease(
    fake_ollama_factory: FakeFactory,
    router_factory: RouterFactory,
    shared_redis: tuple[str, str],
) -> None:
    url, prefix = shared_redis
    gpu = fake_ollama_factory("gpu0")
    settings = router_settings([gpu], None, queue_depth=1, state_prefix=prefix)
    running = await router_factory(settings, redis_url=url)
    client: Redis = Redis.from_url(url, decode_responses=True)
    try:  # a process that took the slot and died: nobody renews it
        store = RedisSlots(client, prefix)
        dead = slot_member(1, False, "dead-process", "l1")
        assert await store.acquire_member("gpu0", dead, 1, SLOT_LEASE_SECONDS, False) == 1
    finally:
        await client.aclose()
    chat = {"model": ORCHESTRATOR_MODEL, "messages": [{"role": "user", "content": "x"}]}
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with httpx.AsyncClient(timeout=20) as http:
        answer = await http.post(
            f"{running.url}/api/chat", json={**chat, "stream": False}, headers=P0
        )
    waited = loop.time() - started
    assert answer.status_code == 200
    assert 1.0 < waited < SLOT_LEASE_SECONDS + 0.5


async def test_a_renewal_racing_a_release_does_not_bring_the_slot_back(
    shared_redis: tuple[str, str],
) -> None:
    """The renewal read the held slots before the release; it reaches Redis after it."""
    url, prefix = shared_redis
    client: Redis = Redis.from_url(url, decode_responses=True)
    store = RedisSlots(client, prefix)
    gone, kept = slot_member(3, True, "p1", "l1"), slot_member(0, False, "p1", "l2")
    try:
        for member in (gone, kept):
            assert await store.acquire_member("gpu", member, 2, SLOT_LEASE_SECONDS, False) == 1
        await store.release("gpu", gone, SLOT_LEASE_SECONDS)
        await store.renew([("gpu", gone), ("gpu", kept)], SLOT_LEASE_SECONDS)
        assert [h.member for h in await store.holders("gpu")] == [kept]
        # A slot that vanished without a release (Redis restarted empty) is merged back.
        await client.delete(f"{prefix}slots:gpu")
        await store.renew([("gpu", kept)], SLOT_LEASE_SECONDS)
        assert [h.member for h in await store.holders("gpu")] == [kept]
    finally:
        await client.aclose()
