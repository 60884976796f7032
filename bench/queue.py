"""Queue benchmark: throughput, lane isolation and subscriber fan-out.

Run from the repository root::

    .venv/bin/python -m bench.queue [--jobs 2000] [--bulk 5000] [--samples 50]
                                    [--subscribers 500] [--transitions-of 20]

Everything runs against its own database (``kenning_bench_queue``, recreated and migrated
here) with the constant-time ``hash`` embedder, so the figures are Kenning's own cost.

- Throughput: ``--jobs`` bulk jobs are queued, then 1 (and then 2) ``kenning worker``
  processes run them; jobs/s = jobs / (last finish - first claim).
- Lane isolation: a ``kenning serve`` process with one in-process worker (2 slots per
  lane). Latency of a priority-1 ``requestIngestion`` → INDEXED (client send time to the
  job's commit time), ``--samples`` times on an idle queue, then again while ``--bulk``
  bulk jobs are queued and being worked; the ratio of the p95s should stay near 1.
- Fan-out: ``--subscribers`` websocket clients, spread over ``--client-processes`` client
  processes, subscribe to ``queueStatus``; jobs are then requested one by one and every
  change's delay from its commit to its arrival at every subscriber is recorded.

Results go to stdout and ``bench/results/queue.json``; every loop is bounded; loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx
import redis.asyncio as aioredis

from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import ROOT, running_server, running_workers
from bench._queue_fanout import fan_out
from bench._queue_harness import REQUEST, all_done, count, one_worker_in_server, truncate, until
from bench._timing import percentile
from bench.corpus import documents
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.queue.jobs import IngestionIdentity
from kenning.domain.queue.requests import request_ingestion
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.constant import ConstantTimeEmbedder

RESULTS = ROOT / "bench" / "results" / "queue.json"
SECTIONS = ["throughput", "lanes", "fan-out"]
DATABASE = "kenning_bench_queue"
REDIS_DB = "13"


def bench_settings() -> Settings:
    """The stack's settings pointed at the benchmark's own database, hash embedder."""
    return own_settings(DATABASE, REDIS_DB)


async def admin_key(settings: Settings) -> str:
    pool = await create_pool(settings, min_size=1)
    try:
        key, _ = await PgApiKeys(pool).create(Scope(), Role.ADMIN, "bench")
        return key
    finally:
        await pool.close()


async def enqueue(settings: Settings, pool: asyncpg.Pool, count: int, tag: str) -> None:
    """Queue ``count`` bulk documents in process (what a connector's requests amount to)."""
    redis = aioredis.from_url(settings.redis_url)
    runtime = Runtime(settings, pool, redis, ConstantTimeEmbedder(settings.embedding_dim))
    gate = asyncio.Semaphore(8)

    async def one(n: int, doc: Any) -> None:
        request = IngestRequest(
            source_urn=f"{doc.source_urn}#{tag}{n}", kind=doc.kind, content=doc.content,
            scope=Scope("bench"), main_node_key=doc.main_node_key, priority=3,
        )  # fmt: skip
        async with gate:
            await request_ingestion(
                request,
                IngestionIdentity("bench", request.source_urn, "v1"),
                policy=settings.secret_policy,
                override=None,
                queue=runtime.queue.jobs,
                connections=runtime.queue.connections,
            )

    try:
        await asyncio.gather(*(one(n, d) for n, d in enumerate(documents(count))))
    finally:
        await runtime.queue.aclose()
        await redis.aclose()


async def throughput(
    settings: Settings, pool: asyncpg.Pool, jobs: int, workers: int
) -> dict[str, Any]:
    await truncate(pool, settings.graph_name)
    await enqueue(settings, pool, jobs, f"t{workers}-")
    started = time.perf_counter()
    async with running_workers(settings, workers):
        await until(lambda: all_done(pool, jobs), within=900, every=0.25)
    wall = time.perf_counter() - started
    span = await pool.fetchval(
        "SELECT extract(epoch FROM max(finished_at) - min(heartbeat_at)) FROM ingestion_jobs"
    )
    chunks = await pool.fetchval("SELECT count(*) FROM chunks")
    return {
        "workers": workers,
        "jobs": jobs,
        "chunks": chunks,
        "jobs_per_s": round(jobs / float(span), 1),
        "wall_s_with_process_start": round(wall, 2),
    }


@dataclass
class Latencies:
    seconds: list[float] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)  # queued → claimed

    def summary(self) -> dict[str, float]:
        ms = [s * 1000 for s in self.seconds]
        waits = [s * 1000 for s in self.waits]
        return {
            "samples": len(ms),
            "p50_ms": round(percentile(ms, 50), 1),
            "p95_ms": round(percentile(ms, 95), 1),
            "max_ms": round(max(ms), 1),
            "queue_wait_p50_ms": round(percentile(waits, 50), 1),
            "queue_wait_p95_ms": round(percentile(waits, 95), 1),
        }


async def priority_latencies(
    client: httpx.AsyncClient, pool: asyncpg.Pool, samples: int, tag: str
) -> Latencies:
    """``samples`` priority-1 requests one after another: send → the job's commit."""
    result = Latencies()
    for n in range(samples):
        urn = f"urn:bench:urgent:{tag}:{n}"
        variables = {
            "input": {"sourceUrn": urn, "kind": "note", "priority": 1,
                      "content": f"Agent note {n}: service:billing calls service:auth."},
            "identity": {"sourceKind": "agent", "contentVersion": "v1"},
        }  # fmt: skip
        sent = time.time()
        answer = (
            await client.post("/graphql", json={"query": REQUEST, "variables": variables})
        ).json()
        job_id = answer["data"]["requestIngestion"]["jobId"]

        async def done(job_id: str = job_id) -> bool:
            return await count(pool, f"id = '{job_id}' AND status = 'INDEXED'") == 1

        await until(done, within=60, every=0.005)
        row = await pool.fetchrow(
            "SELECT created_at, heartbeat_at, finished_at FROM ingestion_jobs WHERE id = $1", job_id
        )
        assert row is not None
        result.seconds.append(row["finished_at"].timestamp() - sent)
        result.waits.append((row["heartbeat_at"] - row["created_at"]).total_seconds())
        await asyncio.sleep(0.1)
    return result


async def lane_isolation(
    settings: Settings, pool: asyncpg.Pool, key: str, bulk: int, samples: int
) -> dict[str, Any]:
    await truncate(pool, settings.graph_name)
    async with running_server(one_worker_in_server(settings), key) as server:
        client = server.client
        await priority_latencies(client, pool, 3, "warm")
        idle = await priority_latencies(client, pool, samples, "idle")
        await enqueue(settings, pool, bulk, "lane-")
        await until(lambda: _bulk_running(pool), within=60)
        loaded = await priority_latencies(client, pool, samples, "loaded")
        left = await count(pool, "lane = 'BULK' AND status = 'QUEUED'")
    p95_idle, p95_loaded = idle.summary()["p95_ms"], loaded.summary()["p95_ms"]
    return {
        "bulk_jobs": bulk,
        "bulk_still_queued_after": left,
        "idle": idle.summary(),
        "loaded": loaded.summary(),
        "p95_ratio": round(p95_loaded / p95_idle, 2),
        "p50_ratio": round(loaded.summary()["p50_ms"] / idle.summary()["p50_ms"], 2),
    }


async def _bulk_running(pool: asyncpg.Pool) -> bool:
    return await count(pool, "lane = 'BULK' AND status = 'RUNNING'") > 0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = bench_settings()
    key = await admin_key(settings)
    pool = await create_pool(settings, min_size=1)
    results: dict[str, Any] = {}
    try:
        if "throughput" in args.only:
            results["throughput"] = [
                await throughput(settings, pool, args.jobs, workers) for workers in (1, 2)
            ]
        if "lanes" in args.only:
            results["lane_isolation"] = await lane_isolation(
                settings, pool, key, args.bulk, args.samples
            )
        if "fan-out" in args.only:
            results["fan_out"] = await fan_out(
                settings, pool, key, args.subscribers, args.transitions_of, args.client_processes
            )
    finally:
        await pool.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--bulk", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--subscribers", type=int, default=500)
    parser.add_argument("--transitions-of", type=int, default=20, help="jobs in the fan-out")
    parser.add_argument(
        "--client-processes", type=int, default=4, help="processes holding the subscribers"
    )
    parser.add_argument(
        "--only", nargs="+", default=SECTIONS, choices=SECTIONS, help="sections to run"
    )
    args = parser.parse_args()
    recreate_and_migrate(bench_settings(), DATABASE)
    started = time.perf_counter()
    results = asyncio.run(run(args))
    results["wall_s"] = round(time.perf_counter() - started, 1)
    results["args"] = vars(args)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    # A partial run (--only) updates its sections and keeps the others.
    kept = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps({**kept, **results}, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
