"""Session entries live in PostgreSQL: a Redis restart (the stack's Redis keeps nothing) and
a server restart lose none. Runs on a private Redis, so the shared one is never touched."""

from __future__ import annotations

from collections.abc import Iterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.memory_session import APPEND, READ, entry_vars
from tests.support.redis_process import RedisProcess

pytestmark = pytest.mark.integration

AGENT = Principal("acme-web", Scope("acme", "web"), Role.AGENT)


@pytest.fixture
def private_redis(migrated_settings: Settings) -> Iterator[RedisProcess]:
    redis = RedisProcess(migrated_settings)
    redis.start()
    yield redis
    redis.stop()


async def read(runtime: Runtime) -> list[str]:
    return [e["summary"] for e in (await Api(runtime, AGENT)(READ))["sessionMemory"]]


async def test_entries_survive_a_redis_restart_and_a_server_restart(
    private_redis: RedisProcess, migrated_settings: Settings, pool: asyncpg.Pool, clean: None
) -> None:
    await pool.execute("TRUNCATE session_entries")
    settings = migrated_settings.model_copy(update={"redis_url": private_redis.url})
    redis = aioredis.from_url(private_redis.url)
    embedder = CountingEmbedder(settings.embedding_dim)
    first = Runtime(settings=settings, pool=pool, redis=redis, embedder=embedder)
    for summary in ("before the restart", "promoted before the restart"):
        promote = summary.startswith("promoted")
        done = await Api(first, AGENT)(APPEND, **entry_vars(summary, promote=promote))
        assert done["appendSessionEntry"]["__typename"] == "AppendSessionEntrySuccess"
    expected = ["promoted before the restart", "before the restart"]
    await redis.set("session-test-marker", "1")

    private_redis.stop()
    assert await read(first) == expected  # Redis is down: the session does not need it
    private_redis.start()
    await redis.aclose()  # its connection died with the server
    fresh = aioredis.from_url(private_redis.url)
    try:
        assert await fresh.get("session-test-marker") is None  # this Redis came back empty
    finally:
        await fresh.aclose()
    assert await read(first) == expected

    # A new process: its own pool and Redis client, nothing carried over in memory.
    new_pool = await create_pool(settings, min_size=1)
    new_redis = aioredis.from_url(private_redis.url)
    try:
        restarted = Runtime(settings=settings, pool=new_pool, redis=new_redis, embedder=embedder)
        assert await read(restarted) == expected
        await Api(restarted, AGENT)(APPEND, **entry_vars("after the restart"))
        assert await read(restarted) == ["after the restart", *expected]
    finally:
        await new_redis.aclose()
        await new_pool.close()
