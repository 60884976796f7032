"""Queue snapshot benchmark: ``queueStatus``'s snapshot with 1,000,000 historical jobs, read
from the maintained ``queue_counts`` (migration 0013) against the count over every job that
it replaced, in the same run.

Run from the repository root::

    .venv/bin/python -m bench.queue_snapshot [--history 1000000] [--samples 200]

Its own database (``kenning_bench_queue_snapshot``, recreated and migrated) receives
``--history`` finished jobs by ``COPY`` (the triggers count them as they land; the load time
is reported) over 40 clients of 5 projects each, plus 300 queued and 20 running jobs. Each
round times, interleaved: ``PgQueueReader.snapshot`` as served (counts, first 20 queued per
lane, running, groups, in one repeatable-read transaction), the same snapshot with the old
counting statement, and the two counting statements alone; for a project reader and a
client reader. Both snapshots must show the same counts. Results go to stdout and
``bench/results/queue_snapshot.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio as aioredis

from bench._own_database import own_settings, recreate_and_migrate
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.db.visibility import visible_rows
from kenning.storage.queue import snapshot as served
from kenning.storage.queue.worker_registry import RedisWorkerRegistry, registry_key

DATABASE = "kenning_bench_queue_snapshot"
RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results" / "queue_snapshot.json"
FIRST = 20
OLD_COUNTS = f"""
    SELECT status, lane, count(*) AS n FROM ingestion_jobs WHERE {visible_rows(1)}
    GROUP BY status, lane"""
COLUMNS = ("id", "idempotency_key", "status", "lane", "priority", "client_id", "project_id",
           "group_id", "payload", "created_at", "updated_at", "finished_at")  # fmt: skip
FINISHED = ("INDEXED", "INDEXED", "INDEXED", "SKIPPED_DUPLICATE", "FAILED", "CANCELLED")
READERS = {"project": Scope("client-07", "p2", "g1"), "client": Scope("client-07")}


def job(n: int, status: str, start: datetime) -> tuple[Any, ...]:
    client, project = n % 40, n // 40 % 5
    priority = 1 if n % 7 == 0 else 7
    at = start + timedelta(milliseconds=n)
    lane = "PRIORITY" if priority == 1 else "BULK"
    return (str(uuid.UUID(int=n)), f"k{n}", status, lane, priority, f"client-{client:02d}",
            f"p{project}", f"g{project % 2}", "{}", at, at,
            at if status not in ("QUEUED", "RUNNING") else None)  # fmt: skip


async def load(pool: asyncpg.Pool, history: int) -> float:
    """Copy the jobs in; returns the seconds it took (triggers included)."""
    start = datetime.now(UTC) - timedelta(days=30)
    began = time.perf_counter()
    async with pool.acquire() as conn:
        for low in range(0, history, 100_000):
            rows = [job(n, FINISHED[n % 6], start) for n in range(low, min(history, low + 100_000))]
            await conn.copy_records_to_table("ingestion_jobs", records=rows, columns=COLUMNS)
        live = [job(history + n, "QUEUED" if n < 300 else "RUNNING", start) for n in range(320)]
        await conn.copy_records_to_table("ingestion_jobs", records=live, columns=COLUMNS)
        await conn.execute("VACUUM ANALYZE ingestion_jobs")
        await conn.execute("VACUUM ANALYZE queue_counts")
    return time.perf_counter() - began


async def old_snapshot(pool: asyncpg.Pool, reader: Scope) -> dict[tuple[str, str], int]:
    """The snapshot's statements as they were before 0013: the counts scan every job."""
    params = (reader.client_id, reader.project_id, reader.group_id)
    async with (
        pool.acquire() as conn,
        conn.transaction(isolation="repeatable_read", readonly=True),
    ):
        await conn.fetchval("SELECT now()")
        counts = await conn.fetch(OLD_COUNTS, *params)
        await conn.fetch(served._QUEUED, *params, FIRST)
        await conn.fetch(served._RUNNING, *params)
        await conn.fetch(served._GROUPS, reader.client_id)
    return {(r["status"], r["lane"]): r["n"] for r in counts}


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
    }


async def timed(work: Awaitable[object]) -> float:
    began = time.perf_counter()  # the coroutine was only created: nothing ran yet
    await work
    return time.perf_counter() - began


async def measure(pool: asyncpg.Pool, reader: served.PgQueueReader, samples: int) -> Any:
    found: dict[str, Any] = {}
    for name, scope in READERS.items():
        params = (scope.client_id, scope.project_id, scope.group_id)
        new = await reader.snapshot(scope, FIRST)
        shown = {(c.status.value, c.lane.value): c.count for c in new.counts if c.count}
        if shown != await old_snapshot(pool, scope):
            raise SystemExit(f"the two snapshots disagree for the {name} reader")
        times: dict[str, list[float]] = {k: [] for k in ("snapshot", "old_snapshot",
                                                          "counts", "old_counts")}  # fmt: skip
        for round_ in range(samples):
            times["snapshot"].append(await timed(reader.snapshot(scope, FIRST)))
            times["counts"].append(await timed(pool.fetch(served._COUNTS, *params)))
            if round_ % 5 == 0:  # the old statements take long; fewer rounds, same run
                times["old_snapshot"].append(await timed(old_snapshot(pool, scope)))
                times["old_counts"].append(await timed(pool.fetch(OLD_COUNTS, *params)))
        found[name] = {k: summary(v) for k, v in times.items()}
        found[name]["jobs_visible"] = sum(shown.values())
    return found


async def run(settings: Settings, history: int, samples: int) -> dict[str, Any]:
    pool = await create_pool(settings, min_size=1)
    redis = aioredis.from_url(settings.redis_url)
    try:
        seconds = await load(pool, history)
        rows = await pool.fetchval("SELECT count(*) FROM queue_counts")
        reader = served.PgQueueReader(pool, RedisWorkerRegistry(redis, registry_key(DATABASE)))
        readers = await measure(pool, reader, samples)
    finally:
        await redis.aclose()
        await pool.close()
    return {"history": history, "load_seconds": round(seconds, 1), "count_rows": rows,
            "samples": samples, "readers": readers}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    settings = own_settings(DATABASE, "14")
    recreate_and_migrate(settings, DATABASE)  # sync: Alembic runs its own loop
    result = asyncio.run(run(settings, args.history, args.samples))
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{result['history']:,} jobs copied in {result['load_seconds']} s "
          f"({result['count_rows']} count rows)")  # fmt: skip
    print(f"{'reader':8} {'measure':13} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}")
    for name, figures in result["readers"].items():
        for measure_, stats in figures.items():
            if isinstance(stats, dict):
                print(f"{name:8} {measure_:13} {stats['p50_ms']:9.2f} {stats['p95_ms']:9.2f} "
                      f"{stats['max_ms']:9.2f}")  # fmt: skip
        snap, old = figures["snapshot"]["p50_ms"], figures["old_snapshot"]["p50_ms"]
        print(f"{name:8} old/new snapshot p50: {old / snap:.0f}x")


if __name__ == "__main__":
    main()
