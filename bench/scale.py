"""Scale benchmark: requests/s of HYBRID search and 2-hop ``neighbors`` through GraphQL with
1 and 2 ``kenning serve`` processes, and queue drain with 1 and 2 ``kenning worker``
processes, in one run.

Run from the repository root::

    .venv/bin/python -m bench.scale [--workers 1,2] [--concurrency 16] [--requests 2000]
                                    [--jobs 1000] [--chunks 10000]

Reads: the read benchmark's corpus (``bench._read_data``, its database per size, built on
the first run and reused after; ``kenning_bench_read_10k`` at the default 10,000 chunks) with
its settings (words embedder, no queue workers) under ``kenning serve --workers N``; the API
key reads as the read benchmark's reader. Each operation gets a warm-up pass, then
``--requests`` requests with ``--concurrency`` in flight (``bench._scale_serve``); CPU per
request of PostgreSQL, this client and the rest (the server processes) comes from
``/proc``, and PostgreSQL's share of the busy CPU says when it, not Kenning, is the limit.
Drain: ``--jobs`` bulk jobs queued, then run by ``kenning worker --processes N`` on a
database of its own, hash embedder (``bench._scale_drain``). Ratios are each figure at the
largest N over N = 1 (goal for searches on a 2-core machine: >= 1.6x). Results go to stdout
and ``bench/results/scale.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import uvloop

from bench._processes import ROOT
from bench._read_corpus import READER, Spec, node_keys, search_queries, visible_start_keys
from bench._read_data import bench_settings, database_for, ready
from bench._scale_drain import drain, prepare
from bench._scale_figures import contention, ratios, render
from bench._scale_serve import measure, serving
from kenning.domain.access.principal import Role
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool

RESULTS = ROOT / "bench" / "results" / "scale.json"
KEY_LABEL = "bench-scale"
CONNECTIONS = ("fresh", "keepalive")


def _counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or any(n < 1 for n in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: give process counts such as 1,2")
    return sorted(set(counts))


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=_counts, default=[1, 2], help="server processes")
    parser.add_argument(
        "--processes", type=_counts, default=[1, 2], help="worker processes for the drain"
    )
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument("--requests", type=int, default=2000, help="per operation and count")
    parser.add_argument("--warm-up", type=int, default=100, help="per operation and count")
    parser.add_argument("--connections", choices=CONNECTIONS, default="fresh")
    parser.add_argument("--jobs", type=int, default=1000, help="drained per count, 0: no drain")
    parser.add_argument("--chunks", type=int, default=10_000, help="the read corpus' size")
    parser.add_argument("--output", type=Path, default=RESULTS)
    return parser.parse_args(argv)


def corpus(spec: Spec) -> tuple[Settings, dict[str, Any]]:
    """The read benchmark's database of this size, built unless it can be reused."""
    settings = bench_settings(database_for(spec.chunks), spec.dim)
    built = ready(settings, spec)
    if built is None:
        return settings, {"built_now": False}
    return settings, {"built_now": True, "build": built}


def _work(spec: Spec, args: argparse.Namespace) -> dict[str, tuple[list[str], list[str]]]:
    """Per operation: its warm-up items and its measured items (distinct where possible)."""
    texts = search_queries(spec, args.warm_up + args.requests, salt=7)
    starts = visible_start_keys(spec, node_keys(spec))
    keys = [starts[i % len(starts)] for i in range(args.warm_up + args.requests)]
    cut = args.warm_up
    return {"search": (texts[:cut], texts[cut:]), "neighbors": (keys[:cut], keys[cut:])}


async def reads(settings: Settings, spec: Spec, args: argparse.Namespace) -> dict[str, Any]:
    """``measure`` with each server-process count, one server at a time."""
    pool = await create_pool(settings)
    found: dict[str, Any] = {}
    try:
        await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)
        key, _ = await PgApiKeys(pool).create(READER, Role.UI, KEY_LABEL)
        work = _work(spec, args)
        for workers in args.workers:
            started = time.perf_counter()
            async with serving(
                settings, key, workers, args.concurrency, args.connections
            ) as counting:
                found[str(workers)] = await measure(counting, pool, work, args.concurrency)
            print(f"  serve x{workers}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    finally:
        await pool.close()
    return found


async def drains(args: argparse.Namespace) -> dict[str, Any]:
    """``drain`` with each worker-process count."""
    if not args.jobs:
        return {}
    settings = await asyncio.to_thread(prepare)
    found: dict[str, Any] = {}
    for processes in args.processes:
        found[str(processes)] = await drain(settings, args.jobs, processes)
        print(f"  worker x{processes}: {found[str(processes)]}", file=sys.stderr)
    return found


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    spec = Spec(chunks=args.chunks)
    settings, data = corpus(spec)
    print("measuring ...", file=sys.stderr)
    started, load_before = time.perf_counter(), os.getloadavg()
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        serve = runner.run(reads(settings, spec, args))
        drained = runner.run(drains(args))
    report: dict[str, Any] = {
        "spec": asdict(spec) | {"edges": spec.edges},
        "data": data,
        "concurrency": args.concurrency,
        "requests": args.requests,
        "connections": args.connections,
        "settings": {"db_pool_max": settings.db_pool_max, "queue_workers": 0},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_1m_before_after": [load_before[0], os.getloadavg()[0]],
        },
        "measure_s": round(time.perf_counter() - started, 1),
        "serve": serve,
        "drain": drained,
    }
    report["ratios"] = ratios(report)
    report["other_cores_busy_max"] = contention(report)
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
