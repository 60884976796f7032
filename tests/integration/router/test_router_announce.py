"""Announce/release swap a single GPU between the sets; leases also expire on their own."""

from __future__ import annotations

import httpx

from kenning.router import ModelSet, Priority
from kenning.router.demo import fake_embedding, normalized
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    BACKGROUND_MODEL,
    ORCHESTRATOR_MODEL,
    RouterFactory,
    router_settings,
    wait_until,
)

EMBED = {"model": BACKGROUND_MODEL, "input": "note"}


async def test_announce_then_release(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0", vram_mb=1200, load_time=0.05)
    cpu = fake_ollama_factory("cpu")
    running = await router_factory(router_settings([gpu], cpu))
    gpu_backend = running.router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND and not gpu_backend.swapping)

    async with httpx.AsyncClient(base_url=running.url, timeout=10) as http:
        before = await http.post("/api/embed", json=EMBED)
        assert before.headers["x-kenning-backend"] == "gpu0"

        ready = (await http.post("/router/announce", json={"session": "chat-1"})).json()
        assert ready["status"] == "ready" and ready["backend"] == "gpu0"
        assert ready["set"] == "orchestrator" and ready["session"] == "chat-1"
        assert gpu.loaded() == [ORCHESTRATOR_MODEL]  # loaded before "ready" was answered

        during = await http.post("/api/embed", json=EMBED)  # background stays off the GPU
        assert during.headers["x-kenning-backend"] == "cpu"
        status = (await http.get("/router/status")).json()
        assert "chat-1" in status["leases"] and status["mode"] == "single-gpu"
        assert status["backends"][0]["holds"] == "orchestrator"

        released = (await http.post("/router/release", json={"session": "chat-1"})).json()
        assert released == {"status": "released", "session": "chat-1", "remaining_leases": 0}
        assert gpu_backend.holds is ModelSet.BACKGROUND
        assert gpu.loaded() == [BACKGROUND_MODEL]
        after = await http.post("/api/embed", json=EMBED)
        assert after.headers["x-kenning-backend"] == "gpu0"
        assert after.json()["embeddings"] == [normalized(fake_embedding("note", 16))]
        metrics = (await http.get("/router/metrics")).text
        assert 'kenning_router_set_swaps_total{backend="gpu0",target="orchestrator"} 1.0' in metrics


async def test_auto_release_after_quiet_period(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0", vram_mb=1200)
    cpu = fake_ollama_factory("cpu")
    running = await router_factory(router_settings([gpu], cpu, auto_release_seconds=0.6))
    gpu_backend = running.router.pool.by_name["gpu0"]
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND and not gpu_backend.swapping)

    client = running.router.client()
    vectors = await client.embed(["x"], BACKGROUND_MODEL, Priority.CRITICAL)  # P0 traffic
    assert vectors == [normalized(fake_embedding("x", 16))]
    assert gpu_backend.holds is ModelSet.ORCHESTRATOR
    # No release call: the traffic lease expires and the GPU returns to the background set.
    await wait_until(lambda: gpu_backend.holds is ModelSet.BACKGROUND, within=5)
    await wait_until(lambda: gpu.loaded() == [BACKGROUND_MODEL], within=5)
    assert await client.embed([], BACKGROUND_MODEL) == []
