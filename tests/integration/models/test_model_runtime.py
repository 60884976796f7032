"""The server's lifespan builds the model client (through its router when it runs one),
takes an injected one instead, and closes it at shutdown."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest
from prometheus_client import CollectorRegistry
from starlette.applications import Starlette

from kenning.domain.models.ports import ChatMessage, ChatRequest, ModelPriority, Role
from kenning.lifespan import server_lifespan
from kenning.metrics import ServiceMetrics
from kenning.router.demo import fake_tokens
from kenning.router_mount import router_app_for
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.embedders.constant import ConstantTimeEmbedder
from kenning.storage.models import OllamaModelClient, RoutedModelClient
from tests.fakes.model_client import FakeModelClient
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import gpu_and_cpu, state_prefix

pytestmark = pytest.mark.integration


@asynccontextmanager
async def served(
    settings: Settings, models: FakeModelClient | None = None, *, hashed: bool = True
) -> AsyncIterator[Runtime]:
    """The lifespan run; ``hashed`` replaces the embedder (else the settings' one)."""
    holder: dict[str, Runtime] = {}
    service = ServiceMetrics(CollectorRegistry())
    embedder = ConstantTimeEmbedder(settings.embedding_dim) if hashed else None
    lifespan = server_lifespan(
        settings, holder, router_app_for(settings), service, embedder, models=models
    )
    app = Starlette(lifespan=lifespan)
    async with app.router.lifespan_context(app):
        yield holder["runtime"]


async def test_an_injected_client_is_the_runtimes_and_is_closed(
    migrated_settings: Settings, pool: asyncpg.Pool
) -> None:
    fake = FakeModelClient(replies=["{}"])
    async with served(migrated_settings, fake) as runtime:
        assert runtime.models is fake
        assert not fake.closed
    assert fake.closed


async def test_with_a_router_the_calls_go_through_it(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, routed_pool: asyncpg.Pool
) -> None:
    async with state_prefix(routed_settings.redis_url) as prefix:
        gpu, cpu, settings = gpu_and_cpu(fake_ollama_factory, routed_settings, prefix)
        async with served(settings, hashed=False) as runtime:
            assert isinstance(runtime.models, RoutedModelClient)
            request = ChatRequest(
                "qwen2.5:7b", (ChatMessage(Role.USER, "name two rivers"),), ModelPriority.BACKGROUND
            )
            reply = await runtime.models.chat(request)
    assert reply.content == "".join(fake_tokens("name two rivers", 8))
    assert reply.model == "qwen2.5:7b" and reply.output_tokens == 8
    assert (
        gpu.count("/api/chat", "qwen2.5:7b", outcome="ok")
        + cpu.count("/api/chat", "qwen2.5:7b", outcome="ok")
        == 1
    )


async def test_a_runtime_built_without_one_talks_to_the_ollama_url(
    migrated_settings: Settings, pool: asyncpg.Pool
) -> None:
    runtime = Runtime(
        settings=migrated_settings,
        pool=pool,
        redis=None,  # type: ignore[arg-type]  # never reached: only the adapter is checked
        embedder=ConstantTimeEmbedder(migrated_settings.embedding_dim),
    )
    assert isinstance(runtime.models, OllamaModelClient)
    await runtime.models.aclose()
