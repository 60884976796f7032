"""A priority-0 request takes the GPU from background work, which finishes on the CPU."""

from __future__ import annotations

import asyncio
import json

import httpx
import ollama

from kenning.router import EventKind, ModelSet, RouterEvent
from kenning.router.demo import fake_embedding, fake_tokens, normalized
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    BACKGROUND_MODEL,
    ORCHESTRATOR_MODEL,
    RouterFactory,
    RunningRouter,
    router_settings,
    wait_until,
)

P0 = {"X-Ollama-Priority": "0"}
P3 = {"X-Ollama-Priority": "3"}


async def _collect(running: RunningRouter, into: list[RouterEvent]) -> None:
    async for event in running.router.events_stream():
        into.append(event)


async def test_p0_preempts_ten_background_embeddings_which_finish_on_cpu(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    # VRAM fits one of the two sets only, so the swap must really unload the embedder.
    gpu = fake_ollama_factory("gpu0", vram_mb=1200, embed_latency=2.0, load_time=0.2)
    cpu = fake_ollama_factory("cpu", embed_latency=0.02)
    settings = router_settings(
        [gpu], cpu, gpu_backends=[{"name": "gpu0", "url": gpu.url, "queue_depth": 10}]
    )
    running = await router_factory(settings)
    gpu_backend = running.router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND and not gpu_backend.swapping)
    assert gpu.loaded() == [BACKGROUND_MODEL]
    events: list[RouterEvent] = []
    collector = asyncio.create_task(_collect(running, events))

    client = ollama.AsyncClient(host=running.url)
    texts = [f"document {i}" for i in range(10)]
    background = [
        asyncio.create_task(client.embed(model=BACKGROUND_MODEL, input=text)) for text in texts
    ]
    await wait_until(lambda: gpu.count("/api/embed", outcome="running") == 10)

    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        body = {"model": ORCHESTRATOR_MODEL, "prompt": "plan the day"}
        async with http.stream("POST", "/api/generate", json=body, headers=P0) as response:
            assert response.headers["x-kenning-backend"] == "gpu0"
            lines = [json.loads(line) async for line in response.aiter_lines()]
    assert "".join(line["response"] for line in lines) == "".join(fake_tokens("plan the day", 8))

    results = await asyncio.gather(*background)
    for text, result in zip(texts, results, strict=True):
        assert result.embeddings == [normalized(fake_embedding(text, 16))]
    assert gpu.count("/api/embed", BACKGROUND_MODEL, outcome="cancelled") == 10
    assert cpu.count("/api/embed", BACKGROUND_MODEL, outcome="ok") == 10
    # The P0 generation started only after the embedder was unloaded and the set preloaded.
    p0 = next(r for r in gpu.records if r.endpoint == "/api/generate" and r.first_token)
    assert gpu.residency.unloads[-1] == BACKGROUND_MODEL
    assert gpu.loaded() == [ORCHESTRATOR_MODEL]
    assert all(r.finished and r.finished <= p0.started + 0.5 for r in gpu.records[:10])

    await wait_until(lambda: any(e.kind is EventKind.SWAP_FINISHED for e in events))
    collector.cancel()
    preemption = next(e for e in events if e.kind is EventKind.PREEMPTION)
    assert preemption.backend == "gpu0" and preemption.detail["cancelled"] == 10
    swap = next(e for e in events if e.kind is EventKind.SWAP_FINISHED)
    assert swap.detail["target"] == ModelSet.ORCHESTRATOR
    assert swap.detail["unloaded"] == [BACKGROUND_MODEL]
    assert swap.detail["preloaded"] == [ORCHESTRATOR_MODEL]
    metrics = running.router.metrics.exposition().decode()
    assert 'kenning_router_preemptions_total{backend="gpu0"} 10.0' in metrics


async def test_background_stream_reruns_before_first_byte_and_errors_after(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.2, tokens=20)
    cpu = fake_ollama_factory("cpu", token_latency=0.001, tokens=20)
    running = await router_factory(router_settings([gpu], cpu))
    gpu_backend = running.router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND and not gpu_backend.swapping)

    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        streamed = {"model": "qwen2.5:7b", "prompt": "summarise"}
        silent = {"model": "qwen2.5:7b", "prompt": "classify", "stream": False}
        async with http.stream("POST", "/api/generate", json=streamed, headers=P3) as started:
            lines = started.aiter_lines()
            first = json.loads(await anext(lines))  # a byte reached the caller
            quiet = asyncio.create_task(http.post("/api/generate", json=silent, headers=P3))
            await wait_until(lambda: gpu.count(model="qwen2.5:7b", outcome="running") == 2)
            await http.post("/router/announce", json={"session": "s1"})
            rest = [json.loads(line) async for line in lines]
        assert first["response"] == fake_tokens("summarise", 20)[0]
        assert "preempted" in rest[-1]["error"] and len(rest) < 20
        answer = (await quiet).json()
        assert answer["response"] == "".join(fake_tokens("classify", 20))

        # A stream preempted before its first byte is re-run on the CPU, invisibly.
        gpu.token_latency = 0.5
        await http.post("/router/release", json={"session": "s1"})
        await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND)
        async with http.stream("POST", "/api/generate", json=streamed, headers=P3) as fresh:
            await wait_until(lambda: gpu.count("/api/generate", "qwen2.5:7b", outcome="running"))
            await http.post("/router/announce", json={})
            text = "".join([json.loads(line)["response"] async for line in fresh.aiter_lines()])
        assert text == "".join(fake_tokens("summarise", 20))
    assert cpu.count("/api/generate", "qwen2.5:7b", outcome="ok") == 2
