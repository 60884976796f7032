"""NDJSON framing, error-line detection, settings, events, and state fallback."""

from __future__ import annotations

import asyncio
import time

import pytest

from kenning.router import EventKind, Priority, RouterEvent, RouterSettings
from kenning.router.http.ndjson import LineSplitter, error_line, error_message, message_of
from kenning.router.state.events import EventHub
from kenning.router.state.state import MemoryState, ResilientState


def test_splitter_keeps_partial_lines_until_complete() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b'{"a":1}\n{"b"') == [b'{"a":1}\n']
    assert splitter.feed(b":2}\n") == [b'{"b":2}\n']
    assert splitter.feed(b'{"c":3}') == []
    assert splitter.flush() == b'{"c":3}'


def test_error_lines() -> None:
    assert error_message(b'{"error":"boom"}\n') == "boom"
    assert error_message(b'{"response":"the word \\"error\\"","done":false}\n') is None
    assert error_message(b'{"error": "x", "done": true}') is None
    assert error_message(error_line("preempted")) == "preempted"
    assert message_of(b'{"error":"model not found"}') == "model not found"
    assert message_of(b"plain") == "plain"


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "KENNING_ROUTER_GPU_BACKENDS",
        '[{"name": "gpu0", "url": "http://127.0.0.1:11434/", "vram_budget_mb": 24000}]',
    )
    monkeypatch.setenv("KENNING_ROUTER_CPU_BACKEND", "http://127.0.0.1:11435")
    monkeypatch.setenv("KENNING_ROUTER_PRIORITY_RULES", '[{"pattern": "qwen2.5:*", "priority": 3}]')
    monkeypatch.setenv("KENNING_ROUTER_ORCHESTRATOR_MODELS", '["qwen3-coder-tool:30b"]')
    settings = RouterSettings()
    assert settings.gpu_backends[0].url == "http://127.0.0.1:11434"
    assert settings.gpu_backends[0].vram_budget_mb == 24000
    assert settings.rules()[0].priority is Priority.BACKGROUND
    assert settings.auto_release_seconds == 300.0
    assert settings.orchestrator_models == ["qwen3-coder-tool:30b"]


def test_settings_reject_duplicate_gpu_names() -> None:
    with pytest.raises(ValueError, match="unique"):
        RouterSettings(gpu_backends=[{"name": "g", "url": "u"}, {"name": "g", "url": "v"}])


async def test_event_hub_fans_out_and_drops_oldest_for_slow_readers() -> None:
    hub = EventHub(buffer=2)
    stream = hub.subscribe()
    first = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)
    for i in range(4):
        hub.publish(RouterEvent(EventKind.PREEMPTION, "gpu0", {"n": i}))
    assert (await first).detail == {"n": 2}  # 0 and 1 were dropped, not the router blocked
    assert (await anext(stream)).detail == {"n": 3}
    assert [e.detail["n"] for e in hub.recent] == [2, 3]
    await stream.aclose()


class FlakyShared(MemoryState):
    """A shared store that can be switched off, standing in for Redis going away."""

    def __init__(self) -> None:
        super().__init__()
        self.up = True

    def _check(self) -> None:
        if not self.up:
            raise ConnectionError("redis down")

    async def get_sets(self) -> dict[str, str]:
        self._check()
        return await super().get_sets()

    async def put_set(self, gpu: str, model_set: str) -> None:
        self._check()
        await super().put_set(gpu, model_set)

    async def touch_lease(self, session: str, expires_at: float) -> None:
        self._check()
        await super().touch_lease(session, expires_at)

    async def leases(self) -> dict[str, float]:
        self._check()
        return await super().leases()

    async def merge_sets(self, sets: dict[str, str]) -> None:
        self._check()
        for gpu, model_set in sets.items():
            self.sets.setdefault(gpu, model_set)

    async def merge_leases(self, leases: dict[str, float]) -> None:
        self._check()
        for session, expires in leases.items():
            await super().touch_lease(session, expires)


async def test_resilient_state_falls_back_and_reseeds_a_restarted_store() -> None:
    shared = FlakyShared()
    transitions: list[bool] = []
    state = ResilientState(shared, lambda up, _: transitions.append(up))
    state.RETRY_SECONDS = 0.0
    await state.put_set("gpu0", "background")
    assert shared.sets == {"gpu0": "background"}

    shared.up = False
    await state.put_set("gpu0", "orchestrator")
    await state.touch_lease("s1", time.time() + 60)
    assert await state.get_sets() == {"gpu0": "orchestrator"}  # local copy keeps routing
    assert "s1" in await state.leases() and state.backend_name.startswith("memory")

    shared.sets.clear()  # the restart lost everything
    shared.up = True
    assert await state.get_sets() == {"gpu0": "orchestrator"}
    assert shared.sets == {"gpu0": "orchestrator"} and "s1" in shared.lease_expiry
    assert transitions == [False, True] and state.backend_name == "redis"
