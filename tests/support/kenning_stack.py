"""Kenning's app with the router mounted in front of fake GPU and CPU Ollama backends.

Needs the real stack (PostgreSQL for the knowledge base, Redis for router state). The
embedder is ``ollama`` with a fake model of the database's dimension; a database records
the model of its vectors, so these tests get one of their own (``<test database>_routed``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
from redis.asyncio import Redis
from starlette.applications import Starlette

from kenning.app import create_app
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router import RouterSettings
from kenning.router.demo import DEFAULT_MODELS, FakeOllama, ModelSpec
from kenning.settings import EmbedderKind, Settings
from kenning.storage.access.api_keys import PgApiKeys
from tests.fakes.ollama import FakeFactory
from tests.support.database import TEST_DATABASE
from tests.support.router_harness import ORCHESTRATOR_MODEL, router_settings

EMBED_MODEL = "kenning-embed"
PROTOCOL_HOST = "http://kenning"
ROUTED_DATABASE = f"{TEST_DATABASE}_routed"


def fake_backend(factory: FakeFactory, name: str, dims: int, **config: Any) -> FakeOllama:
    """A fake Ollama that also serves ``EMBED_MODEL`` at Kenning's dimension."""
    models = (*DEFAULT_MODELS, ModelSpec(EMBED_MODEL, size_mb=300, embedding=True, dims=dims))
    return factory(name, models=models, **config)


def gpu_and_cpu(
    factory: FakeFactory, base: Settings, prefix: str
) -> tuple[FakeOllama, FakeOllama, Settings]:
    """A fake GPU and CPU backend, and Kenning's settings routing to them."""
    dims = base.embedding_dim
    gpu = fake_backend(factory, "gpu0", dims)
    cpu = fake_backend(factory, "cpu", dims)
    return gpu, cpu, kenning_settings(base, routed(gpu, cpu, prefix))


def serve_router_env(gpu: FakeOllama, cpu: FakeOllama, prefix: str) -> dict[str, str]:
    """The environment of a ``kenning serve`` process routing to ``gpu`` and ``cpu`` with its
    router state under ``prefix``."""
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


def kenning_settings(base: Settings, router: RouterSettings, **overrides: Any) -> Settings:
    """Kenning on the test database with the ollama embedder behind ``router``."""
    values: dict[str, Any] = {
        "embedder": EmbedderKind.OLLAMA,
        "embedding_model": EMBED_MODEL,
        "router": router,
        "queue_idle_seconds": 0.1,
        "allow_anonymous": True,
        **overrides,
    }
    return base.model_copy(update=values)


def routed(gpu: FakeOllama, cpu: FakeOllama, prefix: str, **overrides: Any) -> RouterSettings:
    return router_settings(
        [gpu],
        cpu,
        background_models=[EMBED_MODEL],
        orchestrator_models=[ORCHESTRATOR_MODEL],
        state_prefix=prefix,
        **overrides,
    )


@dataclass
class Kenning:
    """The running app, an HTTP client on it, and keys of each role."""

    app: Starlette
    http: httpx.AsyncClient
    keys: dict[Role, str]

    def auth(self, role: Role | None) -> dict[str, str]:
        return {} if role is None else {"Authorization": f"Bearer {self.keys[role]}"}

    async def graphql(
        self, query: str, role: Role | None = Role.ADMIN, **variables: Any
    ) -> dict[str, Any]:
        answer = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self.auth(role)
        )
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body

    async def settled(self) -> None:
        """Wait until every GPU holds its model set (startup swaps preload models)."""
        for _ in range(400):
            status = await self.http.get("/router/status", headers=self.auth(Role.ADMIN))
            backends = status.json()["backends"]
            gpus = [b for b in backends if b["kind"] == "gpu"]
            if all(b["holds"] and not b["swapping"] for b in gpus):
                return
            await asyncio.sleep(0.025)
        raise AssertionError("the router's GPUs did not settle")


@asynccontextmanager
async def running_kenning(settings: Settings, pool: asyncpg.Pool) -> AsyncIterator[Kenning]:
    """``create_app(settings)`` with its lifespan run, reached in-process over ASGI."""
    keys = PgApiKeys(pool)
    made = {role: (await keys.create(Scope(), role, "router-test"))[0] for role in Role}
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url=PROTOCOL_HOST, timeout=30
        ) as http:
            yield Kenning(app, http, made)


@asynccontextmanager
async def state_prefix(redis_url: str) -> AsyncIterator[str]:
    """A fresh Redis key prefix for router state, deleted afterwards."""
    value = f"kenning:router:test:{uuid.uuid4().hex[:8]}:"
    yield value
    client: Redis = Redis.from_url(redis_url)
    keys = [key async for key in client.scan_iter(match=f"{value}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()
