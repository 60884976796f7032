"""Two real `kenning router` processes on one Redis act as one router for a depth-1 GPU:
preemption across processes, a `kill -9` of the slot holder, Redis stopped and started.

Each test runs its own Redis (`RedisProcess`), so stopping it touches no other test.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.router.demo import FakeOllama, fake_tokens
from kenning.router.scheduling.slots import SLOT_LEASE_SECONDS
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.redis_process import RedisProcess
from tests.support.router_harness import ORCHESTRATOR_MODEL
from tests.support.server_process import free_port, stop_server

pytestmark = pytest.mark.e2e
P0 = {"X-Ollama-Priority": "0"}
P3 = {"X-Ollama-Priority": "3"}
CHAT = {"model": ORCHESTRATOR_MODEL, "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def redis(migrated_settings: Settings) -> Iterator[RedisProcess]:
    process = RedisProcess(migrated_settings)
    process.start()
    try:
        yield process
    finally:
        process.stop()


def start_replica(
    gpu: FakeOllama, cpu: FakeOllama | None, redis_url: str, log: Path
) -> tuple[subprocess.Popen[bytes], str]:
    """`kenning router` in front of the fakes, GPU depth 1, sharing ``redis_url``."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    env.update(
        KENNING_ROUTER_GPU_BACKENDS=json.dumps([{"name": "gpu0", "url": gpu.url}]),
        KENNING_ROUTER_ORCHESTRATOR_MODELS=json.dumps([ORCHESTRATOR_MODEL]),
        KENNING_ROUTER_QUEUE_DEPTH="1",
        KENNING_ROUTER_HEALTH_INTERVAL_SECONDS="0.5",
        KENNING_LOG_JSON="false",
    )
    if cpu is not None:
        env["KENNING_ROUTER_CPU_BACKEND"] = cpu.url
    command = ["router", "--port", str(port), "--redis-url", redis_url, "--allow-anonymous"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "kenning", *command], env=env, stdout=sink, stderr=sink
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, log.read_text()
        try:
            if httpx.get(f"{url}/router/status", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)


def peak_concurrency(fake: FakeOllama) -> int:
    """Most model requests the fake ran at one moment, from its own records (a preload is
    recorded done with no end time: it took no time)."""
    ends = [r.finished or (1e18 if r.outcome == "running" else r.started) for r in fake.records]
    edges = [(r.started, 1) for r in fake.records] + [(end, -1) for end in ends]
    peak = current = 0
    for _, step in sorted(edges):
        current += step
        peak = max(peak, current)
    return peak


async def gpu_slots(http: httpx.AsyncClient, url: str) -> tuple[str, list[dict[str, Any]] | None]:
    status = (await http.get(f"{url}/router/status")).json()
    gpu = next(b for b in status["backends"] if b["name"] == "gpu0")
    return status["slots"]["store"], gpu["slots"]


async def until(condition: Any, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not await condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_p3_through_a_is_preempted_by_p0_through_b(
    fake_ollama_factory: FakeFactory, redis: RedisProcess, tmp_path: Path
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.15, tokens=8)
    cpu = fake_ollama_factory("cpu")
    a, a_url = start_replica(gpu, cpu, redis.url, tmp_path / "a.log")
    b, b_url = start_replica(gpu, cpu, redis.url, tmp_path / "b.log")
    try:
        async with httpx.AsyncClient(timeout=20) as http:
            body = {"model": ORCHESTRATOR_MODEL, "prompt": "summarise", "stream": False}
            background = asyncio.ensure_future(
                http.post(f"{a_url}/api/generate", json=body, headers=P3)
            )
            await until(lambda: _true(gpu.count("/api/generate", outcome="running") == 1))
            await asyncio.sleep(0.6)
            chat = await http.post(f"{b_url}/api/chat", json={**CHAT, "stream": False}, headers=P0)
            rerun = await background
    finally:
        stop_server(a)
        stop_server(b)
    assert chat.headers["x-kenning-backend"] == "gpu0"
    assert chat.json()["message"]["content"] == "".join(fake_tokens("hi", 8))
    assert rerun.headers["x-kenning-backend"] == "cpu"
    assert rerun.json()["response"] == "".join(fake_tokens("summarise", 8))
    assert gpu.count("/api/generate", outcome="cancelled") == 1
    assert cpu.count("/api/generate", outcome="ok") == 1
    assert peak_concurrency(gpu) == 1


async def _true(value: bool) -> bool:
    return value


async def test_kill_9_of_the_slot_holder_frees_the_gpu_within_one_lease(
    fake_ollama_factory: FakeFactory, redis: RedisProcess, tmp_path: Path
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.25, tokens=20)
    a, a_url = start_replica(gpu, None, redis.url, tmp_path / "a.log")
    b, b_url = start_replica(gpu, None, redis.url, tmp_path / "b.log")
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            long = {"model": ORCHESTRATOR_MODEL, "prompt": "a long answer", "stream": False}
            held = asyncio.ensure_future(http.post(f"{a_url}/api/generate", json=long, headers=P0))
            await until(lambda: _true(gpu.count("/api/generate", outcome="running") == 1))
            _, slots = await gpu_slots(http, b_url)
            assert slots is not None and [s["here"] for s in slots] == [False]
            a.send_signal(signal.SIGKILL)
            a.wait(timeout=10)
            killed_at = time.monotonic()
            chat = await http.post(f"{b_url}/api/chat", json={**CHAT, "stream": False}, headers=P0)
            with pytest.raises(httpx.HTTPError):
                await held
    finally:
        stop_server(a)
        stop_server(b)
    assert chat.status_code == 200 and chat.headers["x-kenning-backend"] == "gpu0"
    # B's chat reached the GPU once A's unrenewed slot lapsed: within one lease of the kill.
    started = next(r.started for r in gpu.records if r.endpoint == "/api/chat")
    assert started - killed_at < SLOT_LEASE_SECONDS + 0.5
    assert peak_concurrency(gpu) == 1


async def test_redis_stopped_and_started_mid_run(
    fake_ollama_factory: FakeFactory, redis: RedisProcess, tmp_path: Path
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.5, tokens=12)
    a, a_url = start_replica(gpu, None, redis.url, tmp_path / "a.log")
    b, b_url = start_replica(gpu, None, redis.url, tmp_path / "b.log")
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            redis.stop()

            async def alone(url: str) -> bool:
                return (await gpu_slots(http, url))[0] == "local (redis unreachable)"

            await until(lambda: alone(a_url))
            await until(lambda: alone(b_url))
            metrics = (await http.get(f"{a_url}/router/metrics")).text
            assert "kenning_router_shared_slots_up 0.0" in metrics
            # Alone, A still serves; the slot it takes meanwhile is merged back later.
            long = {"model": ORCHESTRATOR_MODEL, "prompt": "while alone", "stream": False}
            running = asyncio.ensure_future(
                http.post(f"{a_url}/api/generate", json=long, headers=P0)
            )
            await until(lambda: _true(gpu.count("/api/generate", outcome="running") == 1))
            redis.start()

            async def merged() -> bool:
                store, slots = await gpu_slots(http, b_url)
                return store == "redis" and slots is not None and len(slots) == 1

            await until(merged)
            assert (await gpu_slots(http, a_url))[0] == "redis"
            chat = await http.post(f"{b_url}/api/chat", json={**CHAT, "stream": False}, headers=P0)
            first = await running
    finally:
        stop_server(a)
        stop_server(b)
    assert first.status_code == 200 and chat.status_code == 200
    # B waited for A's merged slot: the GPU never ran the two at once.
    assert peak_concurrency(gpu) == 1
    assert (
        "redis unreachable, each process schedules its GPUs alone"
        in (tmp_path / "a.log").read_text()
    )
