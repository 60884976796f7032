"""Queue drain with ``kenning worker --processes N``: jobs queued first, then the processes
started and timed until every job is INDEXED.

The database is the benchmark's own (``kenning_bench_scale``, recreated and migrated), the
embedder the constant-time hash one, so the rate is Kenning's and PostgreSQL's cost alone.
jobs/s = jobs / (last finish - first claim), as ``bench.queue`` counts it.
"""

from __future__ import annotations

import os
import time
from typing import Any

import asyncpg

from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import child_environment, running_process
from bench._queue_harness import all_done, count, truncate, until
from bench._read_measure import postgres_pids
from bench._scale_serve import cpu_seconds
from bench.queue import enqueue
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool

DATABASE = "kenning_bench_scale"
REDIS_DB = "13"
DRAIN_WITHIN = 900.0


def drain_settings() -> Settings:
    """The stack's settings on the drain's own database, hash embedder."""
    return own_settings(DATABASE, REDIS_DB)


def machine_busy() -> float:
    """CPU seconds every core of the machine has been busy since boot, from ``/proc/stat``."""
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def worker_command(processes: int) -> tuple[str, ...]:
    """``python -m kenning worker --processes N``'s arguments."""
    return ("-m", "kenning", "worker", "--processes", str(processes))


async def _claimed(pool: asyncpg.Pool) -> bool:
    return await count(pool, "status <> 'QUEUED'") > 0


async def drain(settings: Settings, jobs: int, processes: int) -> dict[str, Any]:
    """``jobs`` bulk jobs queued, then run by ``processes`` worker processes."""
    pool = await create_pool(settings, min_size=1)
    try:
        await truncate(pool, settings.graph_name)
        await enqueue(settings, pool, jobs, f"scale{processes}-")
        started = time.perf_counter()
        env = child_environment(settings)
        async with running_process(worker_command(processes), env=env):
            # CPU from the first claim: the processes' start-up is not the drain's cost.
            await until(lambda: _claimed(pool), within=DRAIN_WITHIN, every=0.02)
            postgres = await postgres_pids(pool)
            cpu = (cpu_seconds(postgres), machine_busy(), time.perf_counter())
            await until(lambda: all_done(pool, jobs), within=DRAIN_WITHIN, every=0.25)
            # Backends that started meanwhile (the workers' pools) count whole, as in reads.
            postgres_cpu = cpu_seconds({*postgres, *await postgres_pids(pool)}) - cpu[0]
            machine_cpu = machine_busy() - cpu[1]
            timed = time.perf_counter() - cpu[2]
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
        # From the first claim to the last job: the machine's cores kept busy, and
        # PostgreSQL's part of them (the rest: the workers, this process, anything else).
        "machine_cores_busy": round(machine_cpu / timed, 2),
        "postgres_cores_busy": round(postgres_cpu / timed, 2),
        "wall_s_with_process_start": round(wall, 2),
    }


def prepare() -> Settings:
    """The drain's database recreated and migrated; its settings."""
    settings = drain_settings()
    recreate_and_migrate(settings, DATABASE)
    return settings
