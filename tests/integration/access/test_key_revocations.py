"""Revocations over the real Redis: every process drops the key; with Redis down, the TTL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.key_sockets import KeySockets
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from tests.support.tcp_relay import TcpRelay

pytestmark = pytest.mark.integration


@pytest.fixture
async def closed_redis() -> AsyncIterator[aioredis.Redis]:
    # Port 9 (discard) is closed on these machines: every command fails at once.
    client = aioredis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=0.5)
    yield client
    await client.aclose()


async def test_a_revocation_reaches_the_cache_of_another_process(
    pool: asyncpg.Pool, redis_client: aioredis.Redis
) -> None:
    here, there = PgApiKeys(pool, redis=redis_client), PgApiKeys(pool, redis=redis_client)
    heard: list[str] = []

    async def listener(key_id: str) -> None:
        heard.append(key_id)

    there.on_revoked(listener)
    key, info = await here.create(Scope("acme"), Role.AGENT, "revocation")
    assert await there.authenticate(key) is not None  # cached there, and listening
    assert there._feed is not None and await asyncio.wait_for(there._feed.listening.wait(), 5)
    try:
        _, told = await here.revoke_everywhere(info.id)
        assert told
        for _ in range(50):
            if heard:
                break
            await asyncio.sleep(0.02)
        assert heard == [info.id]
        assert there.is_revoked(info.id)
        assert await there.authenticate(key) is None
    finally:
        await there.aclose()
        await here.aclose()


async def test_with_redis_down_a_revocation_says_so_and_the_ttl_still_holds(
    pool: asyncpg.Pool, closed_redis: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    here = PgApiKeys(pool, redis=closed_redis)
    there = PgApiKeys(pool, redis=closed_redis, ttl=0.3)
    caplog.set_level(logging.WARNING, logger="kenning.auth")
    key, info = await here.create(Scope("acme"), Role.AGENT, "revocation")
    try:
        assert await there.authenticate(key) is not None
        revoked, told = await here.revoke_everywhere(info.id)
        assert revoked is not None and not told
        assert await here.authenticate(key) is None  # the revoking process knows at once
        await asyncio.sleep(0.4)
        assert await there.authenticate(key) is None  # the others when the TTL ends
        events = {record.getMessage() for record in caplog.records}
        assert "api_keys.revocation.unpublished" in events
        assert "api_keys.revocations.unavailable" in events
    finally:
        await there.aclose()
        await here.aclose()


class _Socket:
    """Stands in for a websocket: records how it was closed."""

    def __init__(self) -> None:
        self.closed_with: int | None = None

    async def close(self, code: int, reason: str = "") -> None:
        self.closed_with = code


async def test_sockets_of_a_key_revoked_while_redis_was_away_close_when_it_is_back(
    pool: asyncpg.Pool, redis_client: aioredis.Redis, test_settings: Settings
) -> None:
    port = int(test_settings.redis_url.rsplit(":", 1)[1].split("/")[0])
    relay = TcpRelay("127.0.0.1", port)
    await relay.start()
    through_relay = aioredis.from_url(f"redis://127.0.0.1:{relay.port}/0")
    here, there = PgApiKeys(pool, redis=redis_client), PgApiKeys(pool, redis=through_relay)
    sockets, kept, revoked_socket = KeySockets(), _Socket(), _Socket()
    key, info = await here.create(Scope("acme"), Role.AGENT, "revoked while away")
    _, other_info = await here.create(Scope("acme"), Role.AGENT, "kept")
    try:
        assert await there.authenticate(key) is not None  # starts listening
        assert there._feed is not None and await asyncio.wait_for(there._feed.listening.wait(), 5)
        sockets.track(revoked_socket, info.id, there)  # type: ignore[arg-type]
        sockets.track(kept, other_info.id, there)  # type: ignore[arg-type]
        await relay.stop()
        await asyncio.sleep(0.3)
        assert (await here.revoke_everywhere(info.id))[1]  # published, but not heard there
        await relay.start()
        for _ in range(200):
            if revoked_socket.closed_with is not None:
                break
            await asyncio.sleep(0.05)
        assert (revoked_socket.closed_with, kept.closed_with) == (4403, None)
    finally:
        await there.aclose()
        await here.aclose()
        await through_relay.aclose()
        await relay.stop()
