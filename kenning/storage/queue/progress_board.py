"""``RedisProgressBoard``: the live counts of running jobs (a crawl's pages, a repository's
files), one Redis hash per job.

Short-lived state, so Redis and not PostgreSQL: the hash expires a day after its last
update. The key carries the job's database (like the queue's channel), the feature and the
job id; who may read it is decided before, by the job read that is scoped to the caller.
Both ways are best effort: a Redis that is down loses counts (the job still runs) and reads
as unknown.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import fields
from typing import Any, Final, Generic, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from kenning.domain.queue.jobs import Job

logger = logging.getLogger("kenning.queue")

TTL_SECONDS: Final = 24 * 3600
TIMEOUT_SECONDS: Final = 2.0
P = TypeVar("P")


def progress_prefix(database: str, feature: str) -> str:
    """The key prefix of one database's progress of one feature's jobs.

    Example: ``progress_prefix("k", "crawl") == "kenning:k:crawl:"``.
    """
    return f"kenning:{database}:{feature}:"


class RedisProgressBoard(Generic[P]):
    """Implements a domain ``ProgressBoard`` of counts ``kind`` (a dataclass of ints)."""

    def __init__(self, redis: aioredis.Redis, prefix: str, kind: type[P]) -> None:
        self._redis = redis
        self._prefix = prefix
        self._kind = kind
        self._fields = tuple(f.name for f in fields(kind))  # type: ignore[arg-type]

    async def put(self, job: Job, progress: P) -> None:
        key = self._prefix + job.id
        mapping = {name: int(getattr(progress, name)) for name in self._fields}
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.hset(key, mapping=mapping)  # type: ignore[arg-type]
                    pipe.expire(key, TTL_SECONDS)
                    await pipe.execute()
        except (RedisError, OSError, TimeoutError) as error:
            logger.warning(
                "progress.put_failed",
                extra={"job_id": job.id, "key": key, "error": type(error).__name__},
            )

    async def get(self, job_id: str) -> P | None:
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                raw = await self._redis.hgetall(self._prefix + job_id)
        except (RedisError, OSError, TimeoutError):
            return None
        if not raw:
            return None
        values = {_text(k): _text(v) for k, v in raw.items()}
        try:
            counts: dict[str, Any] = {name: int(values.get(name, 0)) for name in self._fields}
        except ValueError:
            return None
        return self._kind(**counts)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
