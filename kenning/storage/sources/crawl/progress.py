"""``RedisCrawlProgress``: the live counts of crawl jobs, one Redis hash per job.

Short-lived state, so Redis and not PostgreSQL: the hash expires a day after its last
update. The key carries the job's database (like the queue's channel) and the job id; who
may read it is decided before, by the job read that is scoped to the caller. Both ways are
best effort: a Redis that is down loses counts (the job still runs) and reads as unknown.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import fields
from typing import Final

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from kenning.domain.queue.jobs import Job
from kenning.domain.sources.crawl.crawl_loop import CrawlProgress

logger = logging.getLogger("kenning.sources.crawl")

TTL_SECONDS: Final = 24 * 3600
TIMEOUT_SECONDS: Final = 2.0
_FIELDS: Final = tuple(f.name for f in fields(CrawlProgress))


def progress_prefix(database: str) -> str:
    """The key prefix of one database's crawl progress. Example: ``progress_prefix("k")``."""
    return f"kenning:{database}:crawl:"


class RedisCrawlProgress:
    """Implements the domain's ``ProgressBoard``."""

    def __init__(self, redis: aioredis.Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix

    async def put(self, job: Job, progress: CrawlProgress) -> None:
        key = self._prefix + job.id
        mapping = {name: int(getattr(progress, name)) for name in _FIELDS}
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.hset(key, mapping=mapping)  # type: ignore[arg-type]
                    pipe.expire(key, TTL_SECONDS)
                    await pipe.execute()
        except (RedisError, OSError, TimeoutError) as error:
            logger.warning(
                "crawl.progress.put_failed",
                extra={"job_id": job.id, "error": type(error).__name__},
            )

    async def get(self, job_id: str) -> CrawlProgress | None:
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                raw = await self._redis.hgetall(self._prefix + job_id)
        except (RedisError, OSError, TimeoutError):
            return None
        if not raw:
            return None
        values = {_text(k): _text(v) for k, v in raw.items()}
        try:
            return CrawlProgress(**{name: int(values.get(name, 0)) for name in _FIELDS})
        except ValueError:
            return None


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
