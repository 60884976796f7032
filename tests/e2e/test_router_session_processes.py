"""Two `kenning serve` processes share router state through Redis: a session one client
announced through the first is out of another client's reach through the second, and its
own client ends it through either."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import FakeOllama
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import EMBED_MODEL, fake_backend, state_prefix
from tests.support.router_harness import ORCHESTRATOR_MODEL
from tests.support.server_process import create_key, start_server, stop_server

pytestmark = pytest.mark.e2e


def router_env(gpu: FakeOllama, cpu: FakeOllama, prefix: str) -> dict[str, str]:
    return {
        "KENNING_ROUTER_GPU_BACKENDS": json.dumps(
            [{"name": "gpu0", "url": gpu.url, "vram_budget_mb": 8000}]
        ),
        "KENNING_ROUTER_CPU_BACKEND": cpu.url,
        "KENNING_ROUTER_ORCHESTRATOR_MODELS": json.dumps([ORCHESTRATOR_MODEL]),
        "KENNING_ROUTER_BACKGROUND_MODELS": json.dumps([EMBED_MODEL]),
        "KENNING_ROUTER_HEALTH_INTERVAL_SECONDS": "0.5",
        "KENNING_ROUTER_STATE_PREFIX": prefix,
    }


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def settled_gpu(http: httpx.AsyncClient, url: str, admin: dict[str, str]) -> str:
    """The set gpu0 holds as the process at ``url`` sees it, once no swap runs there."""
    for _ in range(200):
        status = (await http.get(f"{url}/router/status", headers=admin)).json()
        gpu: dict[str, Any] = status["backends"][0]
        if gpu["holds"] and not gpu["swapping"]:
            held: str = gpu["holds"]
            return held
        await asyncio.sleep(0.05)
    raise AssertionError(f"gpu0 did not settle at {url}")


async def test_another_clients_release_through_another_process_leaves_the_session(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, tmp_path: Path
) -> None:
    dims = routed_settings.embedding_dim
    gpu = fake_backend(fake_ollama_factory, "gpu0", dims)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    async with state_prefix(routed_settings.redis_url) as prefix:
        env = router_env(gpu, cpu, prefix)
        first, a = start_server(routed_settings, tmp_path / "a.log", **env)
        try:
            second, b = start_server(routed_settings, tmp_path / "b.log", **env)
        except BaseException:
            stop_server(first)
            raise
        try:
            acme = bearer(await create_key(routed_settings, Scope("acme"), Role.AGENT))
            globex = bearer(await create_key(routed_settings, Scope("globex"), Role.AGENT))
            admin = bearer(await create_key(routed_settings, Scope(), Role.ADMIN))
            async with httpx.AsyncClient(timeout=20) as http:
                ready = await http.post(
                    f"{a.url}/router/announce", json={"session": "chat"}, headers=acme
                )
                assert ready.json()["status"] == "ready", ready.text

                for body in ({}, {"session": "chat"}):
                    answer = await http.post(f"{b.url}/router/release", json=body, headers=globex)
                    assert answer.status_code == 200, answer.text
                    # acme's session and the traffic lease of its announce are left.
                    assert answer.json()["remaining_leases"] == 2
                for url in (b.url, a.url):
                    assert await settled_gpu(http, url, admin) == "orchestrator"
                    status = (await http.get(f"{url}/router/status", headers=admin)).json()
                    assert "chat" in status["leases"]
                    assert [(s["client"], s["session"]) for s in status["sessions"]] == [
                        ("acme", "chat")
                    ]

                # acme ends its own session through the other process.
                released = await http.post(
                    f"{b.url}/router/release", json={"session": "chat"}, headers=acme
                )
                assert released.json() == {
                    "status": "released",
                    "session": "chat",
                    "remaining_leases": 0,
                }
                assert await settled_gpu(http, b.url, admin) == "background"
                status = (await http.get(f"{a.url}/router/status", headers=admin)).json()
                assert status["leases"] == {} and status["sessions"] == []
        finally:
            stop_server(second)
            stop_server(first)
