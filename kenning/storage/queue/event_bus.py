"""``RedisEventBus``: job events across processes over Redis pub/sub.

Publishing is best effort: the row change is already committed, and a subscriber that
missed events re-reads state. The listener reconnects on its own (with a bounded backoff)
and yields ``RESYNC`` after every reconnection, which is what heals a Redis blip: every
subscriber then takes a fresh snapshot instead of trusting a stream with a hole in it.

Pub/sub channels are shared by every Redis database, so the channel is named after the
PostgreSQL database the jobs live in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from kenning.domain.queue.events import RESYNC_MESSAGE, decode_event, encode_event
from kenning.domain.queue.jobs import JobEvent
from kenning.domain.queue.ports import RESYNC, BusMessage

logger = logging.getLogger("kenning.queue")

POLL_SECONDS: Final = 1.0
PUBLISH_TIMEOUT: Final = 2.0
MAX_BACKOFF: Final = 2.0


def channel_for(database: str) -> str:
    """The event channel of one database. Example: ``channel_for("kenning")``."""
    return f"kenning:{database}:jobs"


class RedisEventBus:
    """Implements the domain's ``EventPublisher`` and ``EventSource``."""

    def __init__(self, redis: aioredis.Redis, channel: str) -> None:
        self._redis = redis
        self._channel = channel
        self._ready = asyncio.Event()
        # Set once a first attempt to subscribe ended, either way: a subscriber then knows
        # at once whether the bus is there, instead of waiting out a timeout.
        self._attempted = asyncio.Event()
        self._connects = 0

    @property
    def channel(self) -> str:
        return self._channel

    async def publish(self, event: JobEvent) -> None:
        await self.publish_many([event])

    async def publish_many(self, events: Sequence[JobEvent]) -> None:
        """One round trip for all of them, bounded by ``PUBLISH_TIMEOUT``: the rows are
        committed already, and a Redis that hangs must not hang the request."""
        if not events:
            return
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for event in events:
                    pipe.publish(self._channel, encode_event(event))
                await asyncio.wait_for(pipe.execute(), PUBLISH_TIMEOUT)
        except (RedisError, OSError, TimeoutError) as error:
            logger.warning(
                "queue.event.not_published",
                extra={
                    "job_id": events[0].job.id,
                    "events": len(events),
                    "error": type(error).__name__,
                },
            )

    async def publish_resync(self) -> bool:
        """Ask every subscriber to re-read what it shows; False when Redis did not take it."""
        try:
            await asyncio.wait_for(
                self._redis.publish(self._channel, RESYNC_MESSAGE), PUBLISH_TIMEOUT
            )
        except (RedisError, OSError, TimeoutError) as error:
            logger.warning("queue.resync.not_published", extra={"error": type(error).__name__})
            return False
        return True

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    async def wait_ready(self, within: float) -> bool:
        """True once subscribed; False at once when the last attempt failed, or after
        ``within`` seconds while the first attempt hangs."""
        waits = [asyncio.ensure_future(e.wait()) for e in (self._ready, self._attempted)]
        try:
            await asyncio.wait(waits, timeout=within, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
        return self._ready.is_set()

    def _count_connect(self, _: Any) -> None:
        self._connects += 1

    async def messages(self) -> AsyncIterator[BusMessage]:
        backoff = 0.05
        subscribed_before = False
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._channel)
                assert pubsub.connection is not None
                # redis-py may reconnect and re-subscribe inside get_message; counting
                # connects is how a silent reconnect still yields RESYNC.
                pubsub.connection.register_connect_callback(self._count_connect)
                seen = self._connects
                self._ready.set()
                self._attempted.set()
                if subscribed_before:
                    yield RESYNC
                subscribed_before, backoff = True, 0.05
                while True:
                    message = await pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=POLL_SECONDS
                    )
                    if self._connects != seen:
                        seen = self._connects
                        yield RESYNC
                    if message is None or message.get("type") != "message":
                        continue
                    if message["data"] in (RESYNC_MESSAGE, RESYNC_MESSAGE.encode()):
                        yield RESYNC
                        continue
                    event = decode_event(message["data"])
                    if event is not None:
                        yield event
            except (RedisError, OSError) as error:
                lost = self._ready.is_set()
                self._ready.clear()
                self._attempted.set()
                logger.warning("queue.events.reconnecting", extra={"error": type(error).__name__})
                if lost:
                    yield RESYNC  # subscribers learn at once that they must poll now
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
