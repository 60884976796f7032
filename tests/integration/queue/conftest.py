"""The queue's own database (workers and subscribers of other test sessions never see its
jobs) and a runtime over it with the constant-time embedder."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.database_url import with_database
from kenning.storage.db.migrate import run_upgrade
from kenning.storage.db.pool import create_pool
from kenning.storage.queue.worker_registry import registry_key
from tests.support.database import recreate_database
from tests.support.graphql_api import Api
from tests.support.queue_api import (
    QUEUE_DATABASE,
    close_runtime,
    open_runtime,
    truncate,
)


@pytest.fixture(scope="session")
def queue_settings(test_settings: Settings) -> Settings:
    url = with_database(test_settings.database_url, QUEUE_DATABASE)
    asyncio.run(recreate_database(url, QUEUE_DATABASE))
    settings = test_settings.model_copy(
        update={
            "database_url": url,
            "queue_lease_seconds": 3.0,
            "queue_recover_seconds": 0.5,
            "queue_idle_seconds": 0.5,
            "queue_status_refresh_seconds": 2.0,
        }
    )
    run_upgrade(settings, "head")
    return settings


@pytest.fixture(scope="session")
async def queue_pool(queue_settings: Settings) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(queue_settings, min_size=1)
    yield pool
    await pool.close()


@pytest.fixture
async def queue_clean(queue_pool: asyncpg.Pool, queue_settings: Settings) -> None:
    await truncate(queue_pool, queue_settings)
    redis = aioredis.from_url(queue_settings.redis_url)
    await redis.delete(registry_key(QUEUE_DATABASE))
    await redis.aclose()


@pytest.fixture
async def qruntime(
    queue_settings: Settings, queue_pool: asyncpg.Pool, queue_clean: None
) -> AsyncIterator[Runtime]:
    runtime = await open_runtime(queue_settings, queue_pool)
    yield runtime
    await close_runtime(runtime)


@pytest.fixture
def qapi(qruntime: Runtime) -> Api:
    return Api(qruntime)
