"""The real Redis of the stack: values with TTLs and pub/sub."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

pytestmark = pytest.mark.integration


async def test_round_trip_with_ttl(redis_client: aioredis.Redis) -> None:
    key = f"test:{uuid.uuid4().hex}"
    await redis_client.set(key, "value", ex=30)
    assert await redis_client.get(key) == b"value"
    assert 0 < await redis_client.ttl(key) <= 30
    await redis_client.delete(key)
    assert await redis_client.get(key) is None


async def test_publish_reaches_a_subscriber(redis_client: aioredis.Redis) -> None:
    channel = f"test:{uuid.uuid4().hex}"
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(channel)
    try:
        await pubsub.get_message(timeout=1.0)  # the subscribe confirmation
        assert await redis_client.publish(channel, "hello") == 1
        message = None
        for _ in range(50):
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if message:
                break
            await asyncio.sleep(0)
        assert message is not None and message["data"] == b"hello"
    finally:
        await pubsub.unsubscribe(channel)
        await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
