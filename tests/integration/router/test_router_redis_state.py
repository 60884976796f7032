"""Shared state through Redis: two routers agree on the GPU's set; a Redis restart is survived.

Needs a Redis at ``KENNING_REDIS_URL`` (default: the local stack's); skipped when none answers.
Keys live under a unique prefix and are deleted afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from redis.asyncio import Redis

from kenning.router import EventKind, ModelSet
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    BACKGROUND_MODEL,
    RouterFactory,
    router_settings,
    wait_until,
)
from tests.support.tcp_relay import TcpRelay

EMBED = {"model": BACKGROUND_MODEL, "input": "shared"}


@pytest.fixture
async def redis_url() -> AsyncIterator[str]:
    url = os.environ.get("KENNING_REDIS_URL", "redis://127.0.0.1:6380/0")
    client: Redis = Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        await client.ping()
    except Exception as error:
        await client.aclose()
        # The test command provisions Redis; its absence is a failure, not a reason to skip.
        pytest.fail(f"no Redis at {url}: {error}")
    yield url
    await client.aclose()


@pytest.fixture
async def prefix(redis_url: str) -> AsyncIterator[str]:
    value = f"kenning:router:test:{uuid.uuid4().hex[:8]}:"
    yield value
    client: Redis = Redis.from_url(redis_url)
    keys = [key async for key in client.scan_iter(match=f"{value}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


async def test_two_routers_route_consistently(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory, redis_url: str, prefix: str
) -> None:
    gpu = fake_ollama_factory("gpu0", vram_mb=1200)
    cpu = fake_ollama_factory("cpu")
    settings = router_settings([gpu], cpu, state_prefix=prefix)
    first = await router_factory(settings, redis_url=redis_url)
    second = await router_factory(settings, redis_url=redis_url)
    gpu_seen_by_second = second.router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_seen_by_second.holds is ModelSet.BACKGROUND, within=5)

    async with httpx.AsyncClient(timeout=10) as http:
        ready = await http.post(f"{first.url}/router/announce", json={"session": "a"})
        assert ready.json()["status"] == "ready"
        await wait_until(lambda: gpu_seen_by_second.holds is ModelSet.ORCHESTRATOR, within=5)
        routed = await http.post(f"{second.url}/api/embed", json=EMBED)
        assert routed.headers["x-kenning-backend"] == "cpu"  # the lease is seen by both
        status = (await http.get(f"{second.url}/router/status")).json()
        assert "a" in status["leases"] and status["state_store"] == "redis"

        await http.post(f"{first.url}/router/release", json={"session": "a"})
        await wait_until(lambda: gpu_seen_by_second.holds is ModelSet.BACKGROUND, within=5)
        routed = await http.post(f"{second.url}/api/embed", json=EMBED)
        assert routed.headers["x-kenning-backend"] == "gpu0"


async def test_redis_restart_falls_back_then_reseeds(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory, redis_url: str, prefix: str
) -> None:
    parts = urlsplit(redis_url)
    relay = TcpRelay(parts.hostname or "127.0.0.1", parts.port or 6379)
    await relay.start()
    relayed = urlunsplit(parts._replace(netloc=f"127.0.0.1:{relay.port}"))
    gpu = fake_ollama_factory("gpu0", vram_mb=1200)
    cpu = fake_ollama_factory("cpu")
    running = await router_factory(router_settings([gpu], cpu, state_prefix=prefix), relayed)
    router = running.router
    gpu_backend = router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND, within=5)
    direct: Redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
            await http.post("/router/announce", json={"session": "kept"})
            assert await direct.hget(f"{prefix}sets", "gpu0") == "orchestrator"

            await relay.stop()  # Redis goes away and comes back empty
            await direct.delete(f"{prefix}sets", f"{prefix}leases")
            await wait_until(lambda: not router.state.redis_up, within=5)
            routed = await http.post("/api/embed", json=EMBED)
            assert routed.headers["x-kenning-backend"] == "cpu"  # still honours the lease
            assert gpu_backend.holds is ModelSet.ORCHESTRATOR

            await relay.start()
            await wait_until(lambda: router.state.redis_up, within=5)
            await wait_until(lambda: gpu_backend.holds is ModelSet.ORCHESTRATOR)
            assert await direct.hget(f"{prefix}sets", "gpu0") == "orchestrator"
            assert await direct.zscore(f"{prefix}leases", "kept") is not None
            kinds = [
                e.detail.get("redis_up")
                for e in router.events.recent
                if e.kind is EventKind.STATE_STORE
            ]
            assert kinds == [False, True]
    finally:
        await direct.aclose()
        await relay.stop()
