"""Two `kenning serve` processes share router state through Redis: a session one client
announced through the first is out of another client's reach through the second, and its
own client ends it through either; so is the hold of one client's priority-0 traffic."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import fake_backend, serve_router_env, state_prefix
from tests.support.router_harness import ORCHESTRATOR_MODEL
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e


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


@asynccontextmanager
async def two_servers(
    factory: FakeFactory, settings: Settings, logs: Path
) -> AsyncIterator[tuple[Server, Server]]:
    """Two `kenning serve` processes routing to one fake GPU and CPU on one state prefix."""
    gpu = fake_backend(factory, "gpu0", settings.embedding_dim)
    cpu = fake_backend(factory, "cpu", settings.embedding_dim)
    async with state_prefix(settings.redis_url) as prefix:
        env = serve_router_env(gpu, cpu, prefix)
        first, a = start_server(settings, logs / "a.log", **env)
        try:
            second, b = start_server(settings, logs / "b.log", **env)
        except BaseException:
            stop_server(first)
            raise
        try:
            yield a, b
        finally:
            stop_server(second)
            stop_server(first)


async def swaps(http: httpx.AsyncClient, url: str, admin: dict[str, str]) -> float:
    """Model-set swaps of gpu0 the process at ``url`` ran so far."""
    metrics = (await http.get(f"{url}/router/metrics", headers=admin)).text
    head = 'kenning_router_set_swaps_total{backend="gpu0"'
    return sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith(head))


async def test_another_clients_release_through_another_process_leaves_the_session(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, tmp_path: Path
) -> None:
    async with two_servers(fake_ollama_factory, routed_settings, tmp_path) as (a, b):
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


async def test_a_release_loop_through_another_process_leaves_priority_0_traffic(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, tmp_path: Path
) -> None:
    async with two_servers(fake_ollama_factory, routed_settings, tmp_path) as (a, b):
        acme = bearer(await create_key(routed_settings, Scope("acme"), Role.AGENT))
        globex = bearer(await create_key(routed_settings, Scope("globex"), Role.AGENT))
        admin = bearer(await create_key(routed_settings, Scope(), Role.ADMIN))
        generate = {"model": ORCHESTRATOR_MODEL, "prompt": "hi", "stream": False}
        p0 = {**globex, "X-Ollama-Priority": "0"}
        async with httpx.AsyncClient(timeout=20) as http:
            answer = await http.post(f"{a.url}/ollama/api/generate", json=generate, headers=p0)
            assert answer.headers["x-kenning-backend"] == "gpu0", answer.text
            # b adopts the set a swapped to within a reconcile pass.
            for _ in range(100):
                if await settled_gpu(http, b.url, admin) == "orchestrator":
                    break
                await asyncio.sleep(0.05)
            swapped = [await swaps(http, url, admin) for url in (a.url, b.url)]

            for _ in range(3):
                await http.post(f"{b.url}/router/announce", json={"session": "x"}, headers=acme)
                released = await http.post(
                    f"{b.url}/router/release", json={"session": "x"}, headers=acme
                )
                # globex's traffic lease, renewed at the other process, is left.
                assert released.json()["remaining_leases"] == 1, released.text
            for url in (b.url, a.url):
                assert await settled_gpu(http, url, admin) == "orchestrator"
                status = (await http.get(f"{url}/router/status", headers=admin)).json()
                assert list(status["leases"]) == ["p0-traffic"]
            # Neither process swapped gpu0 away (and back for globex's next request).
            assert [await swaps(http, url, admin) for url in (a.url, b.url)] == swapped

            # globex's release through either process hands the GPU back to background.
            released = await http.post(f"{b.url}/router/release", json={}, headers=globex)
            assert released.json()["remaining_leases"] == 0
            assert await settled_gpu(http, b.url, admin) == "background"
