"""Queue drain with ``kenning worker --processes N``: jobs queued first, then the processes
started and timed until every job is INDEXED.

The database is the benchmark's own (``kenning_bench_scale``, recreated and migrated), the
embedder the constant-time hash one, so the rate is Kenning's and PostgreSQL's cost alone.
jobs/s = jobs / (last finish - first claim), as ``bench.queue`` counts it.
"""

from __future__ import annotations

import time
from typing import Any

from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import child_environment, running_process
from bench._queue_harness import all_done, truncate, until
from bench.queue import enqueue
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool

DATABASE = "kenning_bench_scale"
REDIS_DB = "13"
DRAIN_WITHIN = 900.0


def drain_settings() -> Settings:
    """The stack's settings on the drain's own database, hash embedder."""
    return own_settings(DATABASE, REDIS_DB)


def worker_command(processes: int) -> tuple[str, ...]:
    """``python -m kenning worker --processes N``'s arguments."""
    return ("-m", "kenning", "worker", "--processes", str(processes))


async def drain(settings: Settings, jobs: int, processes: int) -> dict[str, Any]:
    """``jobs`` bulk jobs queued, then run by ``processes`` worker processes."""
    pool = await create_pool(settings, min_size=1)
    try:
        await truncate(pool, settings.graph_name)
        await enqueue(settings, pool, jobs, f"scale{processes}-")
        started = time.perf_counter()
        env = child_environment(settings)
        async with running_process(worker_command(processes), env=env):
            await until(lambda: all_done(pool, jobs), within=DRAIN_WITHIN, every=0.25)
        wall = time.perf_counter() - started
        span = await pool.fetchval(
            "SELECT extract(epoch FROM max(finished_at) - min(heartbeat_at)) FROM ingestion_jobs"
        )
    finally:
        await pool.close()
    return {
        "processes": processes,
        "jobs": jobs,
        "jobs_per_s": round(jobs / float(span), 1),
        "wall_s_with_process_start": round(wall, 2),
    }


def prepare() -> Settings:
    """The drain's database recreated and migrated; its settings."""
    settings = drain_settings()
    recreate_and_migrate(settings, DATABASE)
    return settings
