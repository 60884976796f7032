"""Revocations of API keys, told to every process at once over Redis pub/sub.

Each process caches authentication for a while (``PgApiKeys``); a revocation is
published on ``CHANNEL`` (key id and key hash, never the key) by whoever revokes, the
GraphQL mutation and ``kenning keys revoke`` alike, and every server process listening
drops the key from its cache and closes the key's websockets. With Redis down, a
revocation still lands in PostgreSQL at once; the other processes then see it when their
cached authentication expires. Both sides log that, and a listener back after an outage
forgets every cached authentication, since it may have missed revocations meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

logger = logging.getLogger("kenning.auth")

CHANNEL = "kenning:api-keys:revoked"
_PUBLISH_SECONDS = 2.0
_POLL_SECONDS = 1.0
_MAX_BACKOFF = 5.0


@dataclass(frozen=True, slots=True)
class Revoked:
    """A revoked key: its id and the hash authentication looks it up by."""

    key_id: str
    digest: str


def _decode(data: Any) -> Revoked | None:
    try:
        body = json.loads(data)
        return Revoked(str(body["id"]), str(body["hash"]))
    except (ValueError, TypeError, KeyError):
        return None


async def publish_revocation(redis: aioredis.Redis, revoked: Revoked, ttl: float) -> bool:
    """Tell every process; False (and a warning) when Redis cannot be reached."""
    body = json.dumps({"id": revoked.key_id, "hash": revoked.digest})
    try:
        await asyncio.wait_for(redis.publish(CHANNEL, body), _PUBLISH_SECONDS)
        return True
    except (RedisError, OSError, TimeoutError) as error:
        logger.warning(
            "api_keys.revocation.unpublished",
            extra={
                "key_id": revoked.key_id,
                "error": type(error).__name__,
                "detail": f"Redis is unreachable: other processes refuse the key within "
                f"{ttl:.0f} s, when their cached authentication expires",
            },
        )
        return False


class RevocationFeed:
    """Listens on ``CHANNEL`` in a background task while the process runs."""

    def __init__(
        self,
        redis: aioredis.Redis,
        on_revoked: Callable[[Revoked], Awaitable[None]],
        on_gap: Callable[[], None],
        ttl: float,
    ) -> None:
        self._redis = redis
        self._on_revoked = on_revoked
        self._on_gap = on_gap
        self._ttl = ttl
        self._task: asyncio.Task[None] | None = None
        self._connects = 0
        self.listening = asyncio.Event()

    def ensure_started(self) -> None:
        """Start listening (again) unless already listening; call inside the loop."""
        if self._task is None or self._task.done():
            # A fresh context: the task outlives the request that happened to start it.
            loop = asyncio.get_running_loop()
            self._task = loop.create_task(self._listen(), context=contextvars.Context())

    async def aclose(self) -> None:
        """Stop listening."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _count_connect(self, _: Any) -> None:
        self._connects += 1

    async def _listen(self) -> None:
        backoff, lost = 0.1, False
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                assert pubsub.connection is not None
                # redis-py may reconnect inside get_message, and lose messages doing so.
                pubsub.connection.register_connect_callback(self._count_connect)
                seen = self._connects
                if lost:
                    logger.info("api_keys.revocations.listening")
                    self._on_gap()
                self.listening.set()
                backoff, lost = 0.1, False
                while True:
                    message = await pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=_POLL_SECONDS
                    )
                    if self._connects != seen:
                        seen = self._connects
                        self._on_gap()
                    if message is None or message.get("type") != "message":
                        continue
                    revoked = _decode(message["data"])
                    if revoked is not None:
                        await self._on_revoked(revoked)
            except (RedisError, OSError) as error:
                self.listening.clear()
                self._on_gap()
                # Said after the first pause: at shutdown the client closes under the
                # listener, and the pause is cancelled before anything is logged.
                await asyncio.sleep(backoff)
                if not lost:
                    logger.warning(
                        "api_keys.revocations.unavailable",
                        extra={
                            "error": type(error).__name__,
                            "detail": "Redis is unreachable: revocations made elsewhere "
                            f"reach this process within {self._ttl:.0f} s "
                            "(cached authentication expires) until it is back",
                        },
                    )
                lost = True
                backoff = min(backoff * 2, _MAX_BACKOFF)
            finally:
                # Bounded: closing waits on the socket, and a stop must not hang on it.
                with contextlib.suppress(RedisError, OSError, TimeoutError):
                    await asyncio.wait_for(pubsub.aclose(), _PUBLISH_SECONDS)  # type: ignore[no-untyped-call]
