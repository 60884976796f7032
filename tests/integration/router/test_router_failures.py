"""Backend failures: a GPU dying mid-request, error lines, busy answers, disconnects."""

from __future__ import annotations

import asyncio
import json

import httpx
import ollama
import pytest

from kenning.router import EventKind, ModelSet, RouterEvent
from kenning.router.demo import fake_embedding, fake_tokens, normalized
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    BACKGROUND_MODEL,
    ORCHESTRATOR_MODEL,
    RouterFactory,
    router_settings,
    wait_until,
)

P0 = {"X-Ollama-Priority": "0"}


async def test_gpu_dying_mid_request(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.05, tokens=40, embed_latency=1.0)
    cpu = fake_ollama_factory("cpu", tokens=40)
    running = await router_factory(router_settings([gpu], cpu))
    events: list[RouterEvent] = []

    async def collect() -> None:
        async for event in running.router.events_stream():
            events.append(event)

    collector = asyncio.create_task(collect())
    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        body = {"model": ORCHESTRATOR_MODEL, "prompt": "long answer"}
        embed = {"model": ORCHESTRATOR_MODEL, "input": "keep me"}  # P0, buffered
        async with http.stream("POST", "/api/generate", json=body, headers=P0) as response:
            lines = response.aiter_lines()
            first = json.loads(await anext(lines))
            buffered = asyncio.create_task(http.post("/api/embed", json=embed, headers=P0))
            await wait_until(lambda: gpu.count("/api/embed", outcome="running") == 1)
            gpu.die()
            rest = [json.loads(line) async for line in lines]
        assert first["response"] == fake_tokens("long answer", 40)[0]
        assert "gpu0" in rest[-1]["error"] and "interrupted" in rest[-1]["error"]
        answer = await buffered  # nothing was sent yet: re-run on the CPU, invisibly
        assert answer.status_code == 200 and answer.headers["x-kenning-backend"] == "cpu"
        assert answer.json()["embeddings"] == [normalized(fake_embedding("keep me", 16))]

        status = (await http.get("/router/status")).json()
        assert status["mode"] == "cpu-only" and status["backends"][0]["healthy"] is False
        degraded = await http.post("/api/generate", json={**body, "stream": False}, headers=P0)
        assert degraded.headers["x-kenning-backend"] == "cpu"

        gpu.revive()
        gpu_backend = running.router.pool.by_name["gpu0"]
        await wait_until(lambda: gpu_backend.healthy, within=5)
        back = await http.post("/api/generate", json={**body, "stream": False}, headers=P0)
        assert back.headers["x-kenning-backend"] == "gpu0"
    collector.cancel()
    health = [e.detail["healthy"] for e in events if e.kind is EventKind.BACKEND_HEALTH]
    assert health[:1] == [False] and True in health


async def test_error_lines_busy_and_disconnects(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.02, tokens=30)
    cpu = fake_ollama_factory("cpu", tokens=30)
    running = await router_factory(router_settings([gpu], cpu, busy_retries=2))
    gpu_backend = running.router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND and not gpu_backend.swapping)
    client = ollama.AsyncClient(host=running.url, headers=P0)

    # An error line after the stream started reaches the caller, under status 200.
    gpu.error_after_tokens = 3
    parts: list[str] = []
    with pytest.raises(ollama.ResponseError, match="after the stream started"):
        async for part in await client.generate(model=ORCHESTRATOR_MODEL, prompt="x", stream=True):
            parts.append(part.response or "")
    assert parts == fake_tokens("x", 30)[:3]

    # An error line before any byte: a background stream is re-run on another backend.
    gpu.error_after_tokens = 0
    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        body = {"model": "qwen2.5:7b", "prompt": "y"}
        answer = await http.post("/api/generate", json=body, headers={"X-Ollama-Priority": "3"})
        text = "".join(json.loads(line).get("response", "") for line in answer.text.splitlines())
        assert text == "".join(fake_tokens("y", 30))
        gpu.error_after_tokens = None

        # 503 busy is retried, then relayed as Ollama said it.
        cpu.busy = True
        busy = await http.post("/api/embed", json={"model": BACKGROUND_MODEL, "input": "z"})
        assert busy.status_code == 503 and "server busy" in busy.json()["error"]
        cpu.busy = False
        bad = await http.post("/api/generate", json=body, headers={"X-Ollama-Priority": "9"})
        assert bad.status_code == 400 and "X-Ollama-Priority" in bad.json()["error"]

        # A caller that goes away cancels its upstream request.
        async with http.stream("POST", "/api/generate", json=body, headers=P0) as response:
            await anext(response.aiter_lines())
        await wait_until(lambda: gpu.count("/api/generate", "qwen2.5:7b", outcome="cancelled"))
        gpu.embed_latency = 5.0
        with pytest.raises(httpx.ReadTimeout):
            await http.post(
                "/api/embed",
                json={"model": BACKGROUND_MODEL, "input": "w"},
                headers=P0,
                timeout=0.3,
            )
        await wait_until(lambda: gpu.count("/api/embed", outcome="cancelled") == 1)
