"""Fixtures for router integration tests: fake Ollama backends and a router on loopback, and
Kenning with the router mounted over one fake GPU with keys of two clients."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import Kenning
from tests.support.router_harness import RouterFactory, serving_routers
from tests.support.router_sessions import Keys, client_keys, single_gpu_kenning


@pytest.fixture
async def router_factory() -> AsyncIterator[RouterFactory]:
    """``running = await router_factory(settings)``; stopped after the test."""
    async with serving_routers() as start:
        yield start


@pytest.fixture
async def kenning(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, routed_pool: asyncpg.Pool
) -> AsyncIterator[Kenning]:
    """Kenning with the router over a fake single GPU and a CPU (`single_gpu_kenning`)."""
    async with single_gpu_kenning(fake_ollama_factory, routed_settings, routed_pool) as running:
        yield running


@pytest.fixture
async def keys(kenning: Kenning, routed_pool: asyncpg.Pool) -> Keys:
    """Agent keys of acme (two) and globex, acme's admin key and a global admin's."""
    return await client_keys(kenning, routed_pool)
