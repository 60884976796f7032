"""A background generation (P3 ``/api/chat`` through `RoutedModelClient`) gives the GPU to a
P0 chat, is re-run on the CPU, and its caller still gets the whole scripted answer."""

from __future__ import annotations

import asyncio
import time

from kenning.domain.models.ports import (
    ChatMessage,
    ChatRequest,
    ModelPriority,
    Role,
)
from kenning.router import EventKind, ModelSet, RouterEvent
from kenning.router.demo import fake_tokens
from kenning.storage.models import RoutedModelClient
from tests.fakes.ollama import FakeFactory, Reply
from tests.support.router_harness import (
    ORCHESTRATOR_MODEL,
    router_settings,
    serving_routers,
    wait_until,
)

EXTRACT_MODEL = "qwen2.5:7b"
ANSWER = '{"entities": [{"id": "person:ada", "description": "wrote the first program"}]}'


def chat(model: str, text: str, priority: ModelPriority, *, structured: bool = True) -> ChatRequest:
    schema = {"type": "object"} if structured else None
    return ChatRequest(model, (ChatMessage(Role.USER, text),), priority, schema=schema)


async def test_p0_chat_preempts_a_background_generation_which_finishes_on_cpu(
    fake_ollama_factory: FakeFactory,
) -> None:
    gpu = fake_ollama_factory("gpu0", vram_mb=2500, load_time=0.1)
    cpu = fake_ollama_factory("cpu")
    # On the GPU the generation would take 5 s; the CPU answers the same at once.
    gpu.script([Reply(ANSWER, delay=5.0)])
    cpu.script([ANSWER])
    settings = router_settings([gpu], cpu, background_models=[EXTRACT_MODEL])
    async with serving_routers() as start:
        running = await start(settings)
        router = running.router
        gpu_backend = router.pool.by_name["gpu0"]
        await wait_until(
            lambda: gpu_backend.holds is ModelSet.BACKGROUND and not gpu_backend.swapping
        )
        events: list[RouterEvent] = []

        async def collect() -> None:
            async for event in router.events_stream():
                events.append(event)

        collector = asyncio.create_task(collect())
        models = RoutedModelClient(router.client())
        started = time.monotonic()
        extraction = asyncio.create_task(
            models.chat(chat(EXTRACT_MODEL, "extract: Ada", ModelPriority.BACKGROUND))
        )
        await wait_until(lambda: gpu.count("/api/chat", EXTRACT_MODEL, outcome="running") == 1)

        urgent = await models.chat(
            chat(ORCHESTRATOR_MODEL, "plan", ModelPriority.CRITICAL, structured=False)
        )
        background = await asyncio.wait_for(extraction, 4)
        elapsed = time.monotonic() - started
        await wait_until(lambda: any(e.kind is EventKind.PREEMPTION for e in events))
        collector.cancel()

    assert urgent.content == "".join(fake_tokens("plan", 8))
    assert gpu.count("/api/chat", ORCHESTRATOR_MODEL, outcome="ok") == 1
    assert background.content == ANSWER and background.model == EXTRACT_MODEL
    assert gpu.count("/api/chat", EXTRACT_MODEL, outcome="cancelled") == 1
    assert cpu.count("/api/chat", EXTRACT_MODEL, outcome="ok") == 1
    assert elapsed < 4  # it did not wait out the GPU's five seconds
    preemption = next(e for e in events if e.kind is EventKind.PREEMPTION)
    assert preemption.backend == "gpu0" and preemption.detail["cancelled"] == 1
