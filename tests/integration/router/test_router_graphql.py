"""``routerStatus`` and ``routerEvents``: what each kind of key sees of the mounted router."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis
from strawberry.types import ExecutionResult

from kenning.domain.access.principal import ANONYMOUS, Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.context import Context
from kenning.router import Priority, Router
from kenning.router_mount import router_app_for, running_router
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from kenning.settings import Settings
from kenning.storage.embedders.constant import ConstantTimeEmbedder
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import (
    EMBED_MODEL,
    fake_backend,
    gpu_and_cpu,
    kenning_settings,
    routed,
    running_kenning,
    state_prefix,
)
from tests.support.router_harness import wait_until

pytestmark = pytest.mark.integration

STATUS = """{ routerStatus { mode stateStore criticalInflight
  backends { name gpu url healthy breaker holds swapping inflight waiting queueDepth }
  leases { session traffic expiresInSeconds }
  modelSets { orchestrator background }
  recentEvents { kind backend session targetSet } } }"""
EVENTS = """subscription($kinds: [RouterEventKind!]) { routerEvents(kinds: $kinds) {
  kind backend session targetSet cancelled reason } }"""
ADMIN = Principal(key_id="root", scope=Scope(), role=Role.ADMIN)
CLIENT_ADMIN = Principal(key_id="acme-admin", scope=Scope("acme"), role=Role.ADMIN)
UI = Principal(key_id="acme-ui", scope=Scope("acme"), role=Role.UI)


@pytest.fixture
async def prefix(routed_settings: Settings) -> AsyncIterator[str]:
    async with state_prefix(routed_settings.redis_url) as value:
        yield value


async def test_status_for_admins_ui_keys_and_anonymous_callers(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    prefix: str,
) -> None:
    gpu, cpu, settings = gpu_and_cpu(fake_ollama_factory, routed_settings, prefix)
    async with running_kenning(settings, routed_pool) as kenning:
        await kenning.settled()
        ready = await kenning.http.post(
            "/router/announce", json={"session": "agent-7"}, headers=kenning.auth(Role.AGENT)
        )
        assert ready.json()["status"] == "ready"

        admin = (await kenning.graphql(STATUS, Role.ADMIN))["data"]["routerStatus"]
        assert (admin["mode"], admin["stateStore"]) == ("single-gpu", "redis")
        assert [(b["name"], b["gpu"], b["url"]) for b in admin["backends"]] == [
            ("gpu0", True, gpu.url),
            ("cpu", False, cpu.url),
        ]
        assert admin["backends"][0]["holds"] == "ORCHESTRATOR"
        assert admin["backends"][0]["healthy"] and admin["backends"][0]["queueDepth"] == 4
        sessions = {lease["session"]: lease["traffic"] for lease in admin["leases"]}
        assert sessions["agent-7"] is False
        assert all(0 < lease["expiresInSeconds"] <= 300 for lease in admin["leases"])
        assert admin["modelSets"] == {"orchestrator": ["llama3.2:1b"], "background": [EMBED_MODEL]}
        announce = [e for e in admin["recentEvents"] if e["kind"] == "ANNOUNCE"]
        assert announce == [
            {"kind": "ANNOUNCE", "backend": "gpu0", "session": "agent-7", "targetSet": None}
        ]

        ui = (await kenning.graphql(STATUS, Role.UI))["data"]["routerStatus"]
        assert [b["url"] for b in ui["backends"]] == [None, None]
        assert [b["holds"] for b in ui["backends"]] == ["ORCHESTRATOR", None]
        assert "agent-7" not in {lease["session"] for lease in ui["leases"]}
        assert len(ui["leases"]) == len(admin["leases"])
        assert all(e["session"] is None for e in ui["recentEvents"])

        refused = await kenning.graphql(STATUS, role=None)
        assert refused["data"] == {"routerStatus": None}
        assert "needs an API key" in refused["errors"][0]["message"]


async def _collect(
    runtime: Runtime, principal: Principal, count: int, **variables: Any
) -> list[dict[str, Any]]:
    context = Context(runtime=runtime, principal=principal)
    stream = await build_schema().subscribe(
        EVENTS, variable_values=variables, context_value=context
    )
    assert not isinstance(stream, ExecutionResult), stream.errors
    events: list[dict[str, Any]] = []
    async for result in stream:
        assert result.errors is None, result.errors
        assert result.data is not None
        events.append(result.data["routerEvents"])
        if len(events) == count:
            break
    await stream.aclose()
    return events


async def test_events_of_a_preemption_and_swap(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    prefix: str,
) -> None:
    dims = routed_settings.embedding_dim
    gpu = fake_backend(fake_ollama_factory, "gpu0", dims, embed_latency=1.0)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    settings = kenning_settings(routed_settings, routed(gpu, cpu, prefix))
    redis = aioredis.from_url(settings.redis_url)
    async with running_router(router_app_for(settings)) as router:
        assert isinstance(router, Router)
        gpu_backend = router.pool.by_name["gpu0"]
        await wait_until(lambda: gpu_backend.holds is not None and not gpu_backend.swapping)
        runtime = Runtime(
            settings=settings,
            pool=routed_pool,
            redis=redis,
            embedder=ConstantTimeEmbedder(dims),
            router=router,
        )
        kinds = {"kinds": ["PREEMPTION", "SWAP_FINISHED", "ANNOUNCE"]}
        watchers = [asyncio.create_task(_collect(runtime, who, 3, **kinds)) for who in (ADMIN, UI)]
        await wait_until(lambda: len(router.events._subscribers) == 2)
        embedding = asyncio.create_task(
            router.client().embed(["background"], EMBED_MODEL, Priority.BACKGROUND)
        )
        await wait_until(lambda: gpu.count("/api/embed", outcome="running") == 1)
        await router.announce("agent-9")

        admin_events, ui_events = await asyncio.wait_for(asyncio.gather(*watchers), 10)
        assert [e["kind"] for e in admin_events] == ["PREEMPTION", "SWAP_FINISHED", "ANNOUNCE"]
        preemption, swap, announce = admin_events
        assert (preemption["backend"], preemption["cancelled"]) == ("gpu0", 1)
        assert preemption["reason"] == "priority-0 request"
        assert (swap["backend"], swap["targetSet"]) == ("gpu0", "ORCHESTRATOR")
        assert announce["session"] == "agent-9"
        assert [e["session"] for e in ui_events] == [None, None, None]
        assert [e["kind"] for e in ui_events] == [e["kind"] for e in admin_events]
        assert len(await embedding) == 1  # re-run on the CPU
        await wait_until(lambda: not router.events._subscribers)
    await redis.aclose()


async def test_events_need_a_key_and_a_router(
    routed_settings: Settings, routed_pool: asyncpg.Pool
) -> None:
    redis = aioredis.from_url(routed_settings.redis_url)
    runtime = Runtime(
        settings=routed_settings,
        pool=routed_pool,
        redis=redis,
        embedder=ConstantTimeEmbedder(routed_settings.embedding_dim),
    )
    for principal, message in (
        (CLIENT_ADMIN, "runs no model router"),
        (ANONYMOUS, "needs an API key"),
    ):
        context = Context(runtime=runtime, principal=principal)
        stream = await build_schema().subscribe(EVENTS, context_value=context)
        assert not isinstance(stream, ExecutionResult)
        result = await stream.__anext__()
        assert result.errors is not None and message in result.errors[0].message
        await stream.aclose()
    await redis.aclose()
