"""Fixtures for router integration tests: fake Ollama backends and a router on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.router_harness import RouterFactory, serving_routers


@pytest.fixture
async def router_factory() -> AsyncIterator[RouterFactory]:
    """``running = await router_factory(settings)``; stopped after the test."""
    async with serving_routers() as start:
        yield start
