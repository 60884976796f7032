"""Ingest benchmark: Kenning's GraphQL write path against raw asyncpg storing the same rows.

Run from the repository root::

    .venv/bin/python -m bench.ingest [--docs 2000] [--embedder hash|local|both]

Each embedder gets a fresh database (``kenning_bench``, ``kenning_bench_local``), created and
migrated here. A server process runs ``create_app`` under uvicorn on a free loopback port
(as ``kenning serve`` does, plus a counter of embedder calls at ``/bench/embedder``) and the
synthetic corpus of ``bench.corpus`` goes to it as ``ingest`` mutations at a fixed
concurrency. The ``hash`` run isolates Kenning's own cost and is compared with a baseline
that writes the very rows Kenning wrote (checked by digest) with the minimum SQL: one
transaction per document at the same concurrency, and bulk batches. Then 100 unchanged
documents are re-ingested and the server's embedder-call count must not move. The local run
then sends the same documents through ``requestIngestion`` to the server's own worker
(``bench._ingest_queue``) and encodes the same chunks in a plain sentence-transformers script
(``bench._ingest_model``). Results go to
stdout and ``bench/results/ingest.json``; every loop is bounded and only loopback is used.
"""

import argparse
import asyncio
import os
import time
from collections.abc import Sequence
from typing import Any

import asyncpg

from bench._ingest_baseline import BULK_BATCH, baseline_phase, baseline_rates, make_batches
from bench._ingest_database import DATABASES, postgres_pids, stored_digest, truncate
from bench._ingest_model import plain_script
from bench._ingest_queue import queue_phase
from bench._ingest_recording import precompute
from bench._ingest_report import Rates, rates, report
from bench._ingest_server import (
    REQUEST_TIMEOUT,
    SERVE,
    agent_key,
    embedder_counts,
    send,
    send_all,
    serve,
    warm_up,
)
from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import Server, running_server
from bench._timing import percentile, phase_time, sample
from bench.corpus import Document, documents
from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.pool import create_pool

DEFAULT_DOCS = {EmbedderKind.HASH: 2000, EmbedderKind.LOCAL: 300}
REDIS_DB = "14"


def bench_settings(kind: EmbedderKind) -> Settings:
    """The stack's settings (env overrides honoured) pointed at this run's own database."""
    return own_settings(DATABASES[kind], REDIS_DB, embedder=kind)


# --- the phases -----------------------------------------------------------------------


async def kenning_phase(
    server: Server, pool: asyncpg.Pool, docs: Sequence[Document], workers: int
) -> tuple[Rates, dict[str, int]]:
    """All documents through GraphQL; also the embedder calls and texts they caused."""
    await warm_up(server.client, workers)
    before = await embedder_counts(server.client)
    pg_start = await postgres_pids(pool)
    start = sample([server.pid, *pg_start])
    sent = await send_all(server.client, docs, workers)
    pg = [*pg_start, *await postgres_pids(pool)]
    end = sample([server.pid, *pg])
    after = await embedder_counts(server.client)
    if any(s.status != "INDEXED" for s in sent):
        raise RuntimeError("a new document was not INDEXED")
    used = {key: after[key] - before[key] for key in after}
    return rates(sent, phase_time(start, end, server=[server.pid], postgres=pg)), used


async def reingest_phase(
    server: Server, pool: asyncpg.Pool, graph: str, docs: Sequence[Document], count: int,
    workers: int,
) -> dict[str, object]:  # fmt: skip
    """Unchanged documents again, one at a time, then ``workers`` at a time: no embedding."""
    chosen = list(docs[:: max(1, len(docs) // count)][:count])
    rows = await stored_digest(pool, graph)
    before = await embedder_counts(server.client)
    started = time.perf_counter()
    one_by_one = [await send(server.client, doc) for doc in chosen]
    sequential_s = time.perf_counter() - started
    started = time.perf_counter()
    concurrent = await send_all(server.client, chosen, workers)
    concurrent_s = time.perf_counter() - started
    calls = (await embedder_counts(server.client))["calls"] - before["calls"]
    statuses = sorted({s.status for s in [*one_by_one, *concurrent]})
    unchanged = await stored_digest(pool, graph) == rows
    if statuses != ["SKIPPED_DUPLICATE"] or calls != 0 or not unchanged:
        raise RuntimeError(f"re-ingest: statuses {statuses}, {calls} embedder calls, "
                           f"stored rows unchanged: {unchanged}")  # fmt: skip
    latencies = [s.seconds * 1000 for s in one_by_one]
    return {
        "documents": len(chosen), "statuses": statuses, "embedder_calls": calls,
        "stored_rows_unchanged": unchanged,
        "sequential_ms_mean": sequential_s * 1000 / len(chosen),
        "sequential_ms_p50": percentile(latencies, 50),
        "sequential_ms_p95": percentile(latencies, 95),
        "concurrent_ms_per_doc": concurrent_s * 1000 / len(chosen),
    }  # fmt: skip


async def measure(
    kind: EmbedderKind, settings: Settings, docs: Sequence[Document], args: argparse.Namespace
) -> dict[str, Any]:
    """One embedder's run on its fresh database; the hash run adds the baselines first."""
    graph, workers = settings.graph_name, args.concurrency
    # The in-server worker takes as many bulk jobs at once as the ingest phase sends ingests.
    settings = settings.model_copy(update={"queue_workers": 1, "queue_bulk_slots": workers})
    result: dict[str, Any] = {"embedder": settings.embedding_model, "documents": len(docs)}
    pool = await create_pool(settings, min_size=1)
    try:
        if kind is EmbedderKind.HASH:
            stored = await precompute(docs, settings)
            # Per document: Kenning's unit of work. Bulk: one writer, what batching could buy.
            for name, size, writers in (("per_document", 1, workers), ("bulk", BULK_BATCH, 1)):
                time_ = await baseline_phase(pool, graph, make_batches(stored, size), writers)
                result[f"baseline_{name}"] = baseline_rates(stored, time_, size)
                result[f"baseline_{name}"]["stored"] = await stored_digest(pool, graph)
                await truncate(pool, graph)
        api_key = await agent_key(pool)
        async with running_server(
            settings, api_key, command=SERVE, request_timeout=REQUEST_TIMEOUT, connections=workers
        ) as server:
            result["kenning"], result["embedder_during_ingest"] = await kenning_phase(
                server, pool, docs, workers
            )
            result["kenning_stored"] = await stored_digest(pool, graph)
            if kind is EmbedderKind.HASH:
                result["kenning_to_baseline_docs_per_s"] = {
                    name: result["kenning"].docs_per_s / result[f"baseline_{name}"]["docs_per_s"]
                    for name in ("per_document", "bulk")
                }
            result["reingest"] = await reingest_phase(
                server, pool, graph, docs, args.reingests, workers
            )
            if kind is EmbedderKind.LOCAL:  # the same chunks again, through the queue
                await truncate(pool, graph)
                result["queue"] = await queue_phase(server.client, pool, docs, workers)
    finally:
        await pool.close()
    if kind is EmbedderKind.LOCAL:
        chunks = [c.content for s in await precompute(docs, settings) for c in s.chunks]
        result["model_alone"] = plain_script(chunks)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--docs", type=int, help="documents per run (default 2000 hash, 300 local)")
    parser.add_argument("--embedder", choices=("hash", "local", "both"), default="hash")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--reingests", type=int, default=100)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    args.load_before = os.getloadavg()
    both = (EmbedderKind.HASH, EmbedderKind.LOCAL)
    kinds = both if args.embedder == "both" else (EmbedderKind(args.embedder),)
    started = time.perf_counter()
    results: dict[str, Any] = {}
    for kind in kinds:
        count = args.docs or DEFAULT_DOCS[kind]
        settings = bench_settings(kind)
        print(f"{kind.value}: {count} documents into database {DATABASES[kind]}", flush=True)
        recreate_and_migrate(settings, DATABASES[kind])
        results[kind.value] = asyncio.run(measure(kind, settings, documents(count), args))
    report(results, args, time.perf_counter() - started)


if __name__ == "__main__":
    main()
