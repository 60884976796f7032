"""With two GPUs, P0 owns one and background keeps the other: no preemption, no swapping."""

from __future__ import annotations

import asyncio

import httpx
import ollama

from kenning.router import ModelSet
from kenning.router.demo import fake_embedding, fake_tokens, normalized
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    BACKGROUND_MODEL,
    ORCHESTRATOR_MODEL,
    RouterFactory,
    router_settings,
    wait_until,
)


async def test_dedicated_gpu_for_p0(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu0 = fake_ollama_factory("gpu0", vram_mb=1200)
    gpu1 = fake_ollama_factory("gpu1", vram_mb=1200, embed_latency=0.5)
    cpu = fake_ollama_factory("cpu")
    running = await router_factory(router_settings([gpu0, gpu1], cpu))
    pool = running.router.pool
    await wait_until(
        lambda: (
            pool.by_name["gpu0"].holds is ModelSet.ORCHESTRATOR
            and pool.by_name["gpu1"].holds is ModelSet.BACKGROUND
            and not any(b.swapping for b in pool.gpus)
        )
    )
    assert gpu0.loaded() == [ORCHESTRATOR_MODEL] and gpu1.loaded() == [BACKGROUND_MODEL]

    preloads = gpu1.count("/api/embed", outcome="ok")
    client = ollama.AsyncClient(host=running.url)
    texts = [f"page {i}" for i in range(4)]
    background = [asyncio.create_task(client.embed(model=BACKGROUND_MODEL, input=t)) for t in texts]
    await wait_until(lambda: gpu1.count("/api/embed", outcome="running") == 4)
    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        answer = await http.post(
            "/api/chat",
            json={
                "model": ORCHESTRATOR_MODEL,
                "stream": False,
                "messages": [{"role": "user", "content": "hi"}],
            },
            headers={"X-Ollama-Priority": "0"},
        )
        assert answer.headers["x-kenning-backend"] == "gpu0"
        assert answer.json()["message"]["content"] == "".join(fake_tokens("hi", 8))
        assert gpu1.count("/api/embed", outcome="running") == 4  # untouched
        ready = (await http.post("/router/announce", json={})).json()
        assert ready["backend"] == "gpu0" and ready["status"] == "ready"

    results = await asyncio.gather(*background)
    assert [r.embeddings[0] for r in results] == [normalized(fake_embedding(t, 16)) for t in texts]
    assert (
        gpu1.count("/api/embed", outcome="ok") == preloads + 4
        and gpu1.count(outcome="cancelled") == 0
    )
    registry = running.router.metrics.registry
    assert registry.get_sample_value("kenning_router_preemptions_total", {"backend": "gpu1"}) in (
        None,
        0.0,
    )

    # Losing the dedicated GPU: the announced session follows to the surviving GPU, and
    # once released, P0 preempts background work there like in single-GPU mode.
    gpu0.die()
    await wait_until(lambda: pool.by_name["gpu1"].holds is ModelSet.ORCHESTRATOR, within=5)
    assert gpu1.loaded() == [ORCHESTRATOR_MODEL]
    await client.embed(model=BACKGROUND_MODEL, input="meanwhile")
    assert cpu.count("/api/embed", outcome="ok") == 1
    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        await http.post("/router/release", json={})
    assert pool.by_name["gpu1"].holds is ModelSet.BACKGROUND
    late = asyncio.create_task(client.embed(model=BACKGROUND_MODEL, input="late"))
    await wait_until(lambda: gpu1.count("/api/embed", outcome="running") == 1)
    p0 = ollama.AsyncClient(host=running.url, headers={"X-Ollama-Priority": "0"})
    reply = await p0.generate(model=ORCHESTRATOR_MODEL, prompt="still here")
    assert reply.response == "".join(fake_tokens("still here", 8))
    assert (await late).embeddings == [normalized(fake_embedding("late", 16))]
    assert gpu1.count("/api/embed", outcome="cancelled") == 1
    assert cpu.count("/api/embed", outcome="ok") == 2
