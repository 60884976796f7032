"""Interactive search while bulk work is embedded: search p95 idle and under load, one run.

Run from the repository root::

    .venv/bin/python -m bench.interactive_search [--samples 60] [--bulk 500] [--megabytes 1.95]

A ``kenning serve`` process with the local embedder (all-MiniLM-L6-v2) and one in-process
queue worker runs on its own database (``kenning_bench_interactive``, recreated here). After
a small seed corpus is ingested, VECTOR and HYBRID searches are sent one at a time through
GraphQL: ``--samples`` of each mode idle, then again while a ``--megabytes`` document is
ingested synchronously (priority 3) and ``--bulk`` bulk jobs are queued for the worker.
Goal (issue 15, goal 1): loaded p95 <= 3x idle p95 in each mode. The 2 MB ingest's chunks/s
is reported too. Results go to stdout and ``bench/results/interactive_search.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import asyncpg
import httpx

from bench._ingest_server import _graphql, send
from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import ROOT, running_server
from bench._timing import machine_busy, percentile, process_cpu
from bench.corpus import Document, documents
from bench.queue import enqueue
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import EmbedderKind, Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool

RESULTS = ROOT / "bench" / "results" / "interactive_search.json"
DATABASE = "kenning_bench_interactive"
REDIS_DB = "15"
MODES = ("VECTOR", "HYBRID")
SEED_DOCUMENTS = 40
SEARCH = """
query($q: String!, $mode: SearchMode!) {
  search(query: $q, mode: $mode, limit: 10) {
    __typename ... on SearchSuccess { hits { chunk { id } } }
  }
}"""
QUERIES = [
    "retry policy when the billing service times out",
    "session cache invalidation after login",
    "ledger export scheduler failure",
    "gateway rate limits for webhooks",
    "search index rebuild is slow",
    "who reviewed the checkout migration",
    "inventory sync drops events",
    "auth token refresh race condition",
]


def bench_settings() -> Settings:
    """The stack's settings on the benchmark's database, local model, one queue worker."""
    return own_settings(DATABASE, REDIS_DB, embedder=EmbedderKind.LOCAL, queue_workers=1)


def big_document(megabytes: float) -> Document:
    """One document of about ``megabytes`` MB: synthetic tickets joined end to end."""
    target = int(megabytes * 1_000_000)
    parts: list[str] = []
    size, index = 0, 0
    pool = documents(700)
    while size < target:
        text = pool[index % len(pool)].content
        parts.append(f"Part {index}.\n{text}")
        size += len(parts[-1]) + 2
        index += 1
    return Document("bench:big-document", "bench", "bench:big-document", "\n\n".join(parts))


async def agent_key(settings: Settings) -> str:
    pool: asyncpg.Pool = await create_pool(settings, min_size=1)
    try:
        key, _ = await PgApiKeys(pool).create(Scope("bench"), Role.AGENT, label="bench")
        return key
    finally:
        await pool.close()


async def search_latencies(
    client: httpx.AsyncClient, samples: int, server_pid: int
) -> dict[str, list[float]]:
    """``samples`` searches per mode, one at a time, modes interleaved; milliseconds, and
    the busy cores of the machine and of the server meanwhile (others load it too)."""
    latencies: dict[str, list[float]] = {mode: [] for mode in MODES}
    busy_before, started_all = machine_busy(), time.perf_counter()
    server_before = process_cpu(server_pid)
    for n in range(samples):
        for mode in MODES:
            started = time.perf_counter()
            result = await _graphql(client, SEARCH, q=QUERIES[n % len(QUERIES)], mode=mode)
            latencies[mode].append((time.perf_counter() - started) * 1000)
            if result["search"]["__typename"] != "SearchSuccess" or not result["search"]["hits"]:
                raise RuntimeError(f"{mode} search found nothing: {result}")
    wall = time.perf_counter() - started_all
    latencies["cores"] = [(machine_busy() - busy_before) / wall]
    latencies["server_cores"] = [(process_cpu(server_pid) - server_before) / wall]
    return latencies


def summary(latencies: dict[str, list[float]]) -> dict[str, Any]:
    """p50 and p95 per mode, and the machine's busy cores while they were measured."""
    modes: dict[str, Any] = {
        mode: {"p50_ms": percentile(latencies[mode], 50), "p95_ms": percentile(latencies[mode], 95)}
        for mode in MODES
    }
    return modes | {
        "machine_cores_busy": latencies["cores"][0],
        "server_cores_busy": latencies["server_cores"][0],
    }


async def under_load(
    settings: Settings, server_client: httpx.AsyncClient, server_pid: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Searches while the big document is ingested and the bulk jobs are queued."""
    pool: asyncpg.Pool = await create_pool(settings, min_size=1)
    try:
        await enqueue(settings, pool, args.bulk, "interactive-")
    finally:
        await pool.close()
    doc = big_document(args.megabytes)
    started = time.perf_counter()
    ingest = asyncio.create_task(send(server_client, doc))
    await asyncio.sleep(args.settle)  # chunking and hashing first; the embedding follows
    latencies = await search_latencies(server_client, args.samples, server_pid)
    still_ingesting = not ingest.done()
    sent = await ingest
    wall = time.perf_counter() - started
    return {
        "latencies": latencies,
        "ingest_running_through_the_searches": still_ingesting,
        "document_bytes": len(doc.content.encode()),
        "document_chunks": sent.chunks,
        "document_seconds": wall,
        "document_chunks_per_s": sent.chunks / wall,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = bench_settings()
    key = await agent_key(settings)
    async with running_server(settings, key, request_timeout=900.0) as server:
        for doc in documents(SEED_DOCUMENTS):
            await send(server.client, doc)
        await search_latencies(server.client, 3, server.pid)  # first requests open pool connections
        idle = await search_latencies(server.client, args.samples, server.pid)
        loaded = await under_load(settings, server.client, server.pid, args)
    idle_summary, loaded_summary = summary(idle), summary(loaded.pop("latencies"))
    ratios = {m: loaded_summary[m]["p95_ms"] / idle_summary[m]["p95_ms"] for m in MODES}
    return {
        "samples_per_mode": args.samples,
        "bulk_jobs_queued": args.bulk,
        "idle": idle_summary,
        "loaded": loaded_summary,
        "p95_loaded_over_idle": ratios,
        "goal_p95_ratio_at_most": 3.0,
        **loaded,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--bulk", type=int, default=500)
    parser.add_argument("--megabytes", type=float, default=1.95)  # ingest max: 2,000,000
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before sampling")
    recreate_and_migrate(bench_settings(), DATABASE)  # sync: Alembic runs its own loop
    result = asyncio.run(run(parser.parse_args()))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
