"""The crawl benchmark's end-to-end phase: the whole crawl job as a worker runs it (the
registered runner: fetch, extract, chunk, embed with the hash embedder, store each page
through ``ingest_graph`` in PostgreSQL), then the same crawl again, every page answered 304.

It runs in its own database (``kenning_bench_crawl``, dropped and migrated first).
"""

from __future__ import annotations

import time
from typing import Any

import redis.asyncio as aioredis

from bench._own_database import own_settings, recreate_and_migrate
from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.domain.sources.crawl import crawl_spec, request_crawl
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder

DATABASE = "kenning_bench_crawl"
REDIS_DB = "12"
SCOPE = Scope("bench")


def job_settings(concurrency: int) -> Settings:
    """The benchmark database, loopback allowed and no per-host interval."""
    return own_settings(
        DATABASE, REDIS_DB, crawl_allow_private=True, crawl_min_interval_seconds=0.0,
        crawl_concurrency=concurrency,
    )  # fmt: skip


def fresh_database(concurrency: int) -> None:
    """Drop and migrate the benchmark's database (sync: before the event loop runs)."""
    recreate_and_migrate(job_settings(concurrency), DATABASE)


async def _one_job(runtime: Runtime, base: str, count: int) -> tuple[float, JobStatus | None]:
    spec = crawl_spec(base + "/", max_depth=20, max_pages=count + 10)
    started = time.perf_counter()
    await request_crawl(spec, SCOPE, queue=runtime.queue.jobs)
    claimed = await runtime.queue.work.claim(Lane.BULK, "bench/crawl", 600)
    if claimed is None:
        raise SystemExit("the crawl job was not queued")
    status = await run_job(claimed, runtime.queue.work, runtime.job_deps())
    return time.perf_counter() - started, status


async def end_to_end(base: str, count: int, concurrency: int) -> dict[str, Any]:
    """Pages/s of the crawl job storing every page, then of the unchanged re-crawl."""
    settings = job_settings(concurrency)
    pool = await create_pool(settings)
    redis = aioredis.from_url(settings.redis_url)
    runtime = Runtime(settings=settings, pool=pool, redis=redis, embedder=create_embedder(settings))
    try:
        first, status = await _one_job(runtime, base, count)
        chunks = await pool.fetchval("SELECT count(*) FROM chunks")
        again, restatus = await _one_job(runtime, base, count)
        if (status, restatus) != (JobStatus.INDEXED, JobStatus.INDEXED):
            raise SystemExit(f"the crawl jobs ended {status} and {restatus}")
        if await pool.fetchval("SELECT count(*) FROM chunks") != chunks:
            raise SystemExit("the unchanged re-crawl stored chunks again")
    finally:
        await redis.aclose()
        await pool.close()
    return {
        "job_pages_per_s": round(count / first, 1), "job_seconds": round(first, 3),
        "recrawl_pages_per_s": round(count / again, 1), "recrawl_seconds": round(again, 3),
        "chunks_stored": chunks, "embedder": settings.embedding_model,
    }  # fmt: skip
