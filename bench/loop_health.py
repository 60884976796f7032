"""Event-loop health under large ingests: ``/healthz`` latency while 2 MB documents index.

Run from the repository root::

    .venv/bin/python -m bench.loop_health [--rounds 3] [--concurrent 3] [--megabytes 2]

A fresh database (``kenning_bench_loop``) is created and migrated, and a server process runs
``create_app`` under uvicorn with the hash embedder (as ``bench.ingest`` starts it), so what
is measured is Kenning's own work. First ``/healthz`` is probed on the idle server, then
again while ``--concurrent`` ingests of ``--megabytes`` MB each run at once (new documents
every round: engineering prose from ``bench.corpus``, with references and relationships).
A probe is sent every 20 ms, one at a time, on a connection of its own, so its latency is
the time the server's loop took to answer. The goal is a p99 of at most 50 ms under load.
Results go to stdout and ``bench/results/loop_health.json``; only loopback is used.
"""

import argparse
import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import httpx

from bench._ingest_database import CLIENT
from bench._ingest_server import INGEST, REQUEST_TIMEOUT, SERVE, agent_key
from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import running_server
from bench._timing import percentile
from bench.corpus import documents
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool

DATABASE = "kenning_bench_loop"
REDIS_DB = "13"
GOAL_P99_MS = 50.0
PROBE_INTERVAL_S = 0.02
RESULTS = Path(__file__).resolve().parent / "results" / "loop_health.json"


def bench_settings() -> Settings:
    """The stack's settings (env overrides honoured) on this benchmark's own database."""
    return own_settings(DATABASE, REDIS_DB)


def fresh_database(settings: Settings) -> None:
    """Drop, create and migrate ``kenning_bench_loop``."""
    recreate_and_migrate(settings, DATABASE)


def large_document(size: int, nonce: str) -> str:
    """About ``size`` characters of corpus prose; ``nonce`` makes every round new content."""
    parts: list[str] = [f"Large document {nonce}.\n\n"]
    length = len(parts[0])
    count = size // 1400 + 1
    for doc in documents(count):
        if length >= size:
            break
        text = doc.content.replace("\n\n", f"\n\n({nonce}) ", 1) + "\n\n"
        parts.append(text)
        length += len(text)
    return "".join(parts)[:size]


async def probe_until(url: str, done: asyncio.Event, minimum: int = 0) -> list[float]:
    """``/healthz`` latencies (ms), one probe at a time, until ``done`` (and ``minimum``)."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        await client.get("/healthz")  # open the connection outside the measurement
        while not done.is_set() or len(latencies) < minimum:
            started = time.perf_counter()
            response = await client.get("/healthz")
            latencies.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
            await asyncio.sleep(PROBE_INTERVAL_S)
    return latencies


def summary(latencies: list[float]) -> dict[str, float]:
    """p50, p99 and worst of a list of latencies (ms)."""
    return {
        "probes": len(latencies),
        "p50_ms": round(percentile(latencies, 50), 2),
        "p99_ms": round(percentile(latencies, 99), 2),
        "max_ms": round(max(latencies), 2),
    }


def ingest_body(urn: str, content: str) -> bytes:
    """The JSON body of one ``ingest``, encoded before the probes start: the client's own
    loop must not delay a probe."""
    document = {"sourceUrn": urn, "kind": "doc", "content": content,
                "scope": {"clientId": CLIENT}}  # fmt: skip
    return json.dumps({"query": INGEST, "variables": {"input": document}}).encode()


async def ingest_one(client: httpx.AsyncClient, urn: str, body: bytes) -> float:
    """One ``ingest``; its wall time in seconds (anything but INDEXED fails)."""
    started = time.perf_counter()
    headers = {"Content-Type": "application/json"}
    response = await client.post("/graphql", content=body, headers=headers)
    response.raise_for_status()
    result = response.json()["data"]["ingest"]
    if result.get("status") != "INDEXED":
        raise RuntimeError(f"{urn} was not indexed: {result}")
    return time.perf_counter() - started


async def measure(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    """Idle probes, then ``args.rounds`` rounds of concurrent large ingests under probes."""
    pool = await create_pool(settings, min_size=1)
    try:
        api_key = await agent_key(pool)
    finally:
        await pool.close()
    size = int(args.megabytes * 1_000_000)
    async with running_server(
        settings,
        api_key,
        command=SERVE,
        request_timeout=REQUEST_TIMEOUT,
        connections=args.concurrent,
    ) as server:
        url = server.url
        idle_done = asyncio.Event()
        idle_done.set()
        idle = await probe_until(url, idle_done, minimum=args.idle_probes)
        loaded: list[float] = []
        ingest_s: list[float] = []
        for round_ in range(args.rounds):
            urns = [f"bench:large:{round_}:{i}" for i in range(args.concurrent)]
            bodies = [ingest_body(u, large_document(size, u)) for u in urns]
            done = asyncio.Event()
            probes = asyncio.create_task(probe_until(url, done))
            try:
                sends = [ingest_one(server.client, u, b) for u, b in zip(urns, bodies, strict=True)]
                ingest_s += await asyncio.gather(*sends)
            finally:
                done.set()
                loaded += await probes
            print(f"round {round_ + 1}: {summary(loaded)}", flush=True)
    return {
        "documents_per_round": args.concurrent,
        "document_chars": size,
        "rounds": args.rounds,
        "idle": summary(idle),
        "during_ingests": summary(loaded),
        "ingest_s": {"mean": round(sum(ingest_s) / len(ingest_s), 2),
                     "max": round(max(ingest_s), 2)},
        "goal_p99_ms": GOAL_P99_MS,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrent", type=int, default=3)
    parser.add_argument("--megabytes", type=float, default=2.0)
    parser.add_argument("--idle-probes", type=int, default=200)
    args = parser.parse_args()
    settings = bench_settings()
    print(f"loop health: {args.concurrent} x {args.megabytes} MB ingests, {args.rounds} rounds, "
          f"database {DATABASE}", flush=True)  # fmt: skip
    load_before = os.getloadavg()
    fresh_database(settings)
    result = asyncio.run(measure(settings, args))
    result["load_average_before"] = [round(x, 2) for x in load_before]
    result["met_goal"] = result["during_ingests"]["p99_ms"] <= GOAL_P99_MS
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"/healthz p99 under load {result['during_ingests']['p99_ms']} ms "
          f"(idle {result['idle']['p99_ms']} ms); goal <= {GOAL_P99_MS} ms: "
          f"{'met' if result['met_goal'] else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
