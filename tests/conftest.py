"""Shared fixtures: a migrated test database on the real stack and a Redis client.

The stack is the one the test command provisions (`kenning stack up`); tests use their own
database, ``kenning_test``, so they never touch the development data.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.router.demo import FakeOllama
from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.database_url import with_database
from kenning.storage.db.migrate import run_upgrade
from kenning.storage.db.pool import create_pool
from tests.fakes.ollama import FakeFactory
from tests.support.database import TEST_DATABASE, base_settings, recreate_database
from tests.support.kenning_stack import EMBED_MODEL, ROUTED_DATABASE


@pytest.fixture(scope="session")
def test_settings() -> Settings:
    base = base_settings()
    redis_db = os.environ.get("KENNING_TEST_REDIS_DB", "15")
    redis_url = base.redis_url.rsplit("/", 1)[0] + "/" + redis_db
    return base.model_copy(
        update={
            "database_url": with_database(base.database_url, TEST_DATABASE),
            "redis_url": redis_url,
            # A cheap deterministic embedder; the local model has its own tests.
            "embedder": EmbedderKind.HASH,
            "embedding_model": f"hash-{base.embedding_dim}",
        }
    )


@pytest.fixture(scope="session")
def migrated_settings(test_settings: Settings) -> Settings:
    # Sync on purpose: Alembic's async environment runs its own event loop.
    asyncio.run(recreate_database(test_settings.database_url, TEST_DATABASE))
    run_upgrade(test_settings, "head")
    return test_settings


@pytest.fixture(scope="session")
async def pool(migrated_settings: Settings) -> AsyncIterator[asyncpg.Pool]:
    db_pool = await create_pool(migrated_settings, min_size=1)
    yield db_pool
    await db_pool.close()


@pytest.fixture
async def redis_client(test_settings: Settings) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(test_settings.redis_url)
    yield client
    await client.aclose()


@pytest.fixture
def fake_ollama_factory() -> Iterator[FakeFactory]:
    """Start fakes on demand: ``gpu = fake_ollama_factory("gpu0", load_time=0.1)``."""
    started: list[FakeOllama] = []

    def make(name: str = "fake", **config: Any) -> FakeOllama:
        fake = FakeOllama(name, **config)
        fake.start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()


@pytest.fixture(scope="session")
def routed_settings(test_settings: Settings) -> Settings:
    """A migrated database of its own; Kenning's settings without the router yet."""
    url = with_database(test_settings.database_url, ROUTED_DATABASE)
    asyncio.run(recreate_database(url, ROUTED_DATABASE))
    settings = test_settings.model_copy(
        update={
            "database_url": url,
            "embedder": EmbedderKind.OLLAMA,
            "embedding_model": EMBED_MODEL,
        }
    )
    run_upgrade(settings, "head")
    return settings


@pytest.fixture(scope="session")
async def routed_pool(routed_settings: Settings) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(routed_settings, min_size=1)
    yield pool
    await pool.close()
