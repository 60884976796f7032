"""Read benchmark: HYBRID and KEYWORD search and 2-hop neighbors through GraphQL over HTTP
against the raw SQL they run, on a synthetic corpus of 100,000 chunks and a graph of
100,000 vertices and 500,000 edges, in one run.

Run from the repository root::

    .venv/bin/python -m bench.read [--rebuild] [--queries 300] [--load-queries 600]

The data lives in its own database (``kenning_bench_read``), built with direct SQL on the
first run (see ``bench._read_data``) and reused while spec, migrations and row counts
match; ``--rebuild`` forces a new one. A server process runs ``create_app`` under uvicorn on
a free loopback port with the words embedder (``KENNING_EMBEDDER=words``); an API key of
project ``p0`` / group ``g0`` of ``client-00`` reads about 7.6 % of the chunks (see
``bench._read_corpus``).

The 2-hop traversal is also run as one AGE Cypher statement with a variable-length pattern
(``bench._read_cypher``, ``--cypher-queries`` keys, interleaved with SQL), reported as
``ops.neighbors.latency.cypher``; KEYWORD search (``ops.keyword_search``) uses the same
queries as HYBRID. Each read goes three ways (``bench._read_paths``): ``sql`` (the
server's statements via asyncpg, least Python), ``domain`` (Kenning's use case over its
storage adapters, in process) and ``graphql`` (HTTP to the server), plus ``http_floor``
(``GET /healthz``, the transport alone). Latency is measured one query at a time with the
paths interleaved; throughput with ``--concurrency`` queries in flight. All paths must
return the same answers. Then, without the server: recall@10 of the scoped vector search
against an exact scan and KEYWORD's top-k statement against the exhaustive one, on
``--recall-queries`` texts (``bench._read_recall``), search with and without a filter keeping
5 % of the reader's chunks (``--filtered-queries``, ``bench._read_filtered``), and ingest
throughput into this database against an empty one (``--ingest-docs``, ``bench._read_ingest``).
Results go to stdout and ``bench/results/read.json``.
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

from bench._read_corpus import READER, Spec
from bench._read_data import PREFIX, bench_settings, database_for, load, recreate, stale_reason
from bench._read_filtered import filtered_search
from bench._read_ingest import empty_database, ingest_at_size
from bench._read_ops import measure
from bench._read_recall import search_quality
from bench._read_report import ratios, render
from bench._read_server import serve
from kenning.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "read.json"
DEFAULT = Spec()


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="build the data again")
    parser.add_argument("--chunks", type=int, default=DEFAULT.chunks)
    parser.add_argument("--vertices", type=int, default=DEFAULT.vertices)
    parser.add_argument(
        "--database",
        help=f"must start with {PREFIX}; default {PREFIX} at 100k chunks, else one per size "
        f"({PREFIX}_10k, {PREFIX}_1m, ...), so sizes do not rebuild each other",
    )
    parser.add_argument("--queries", type=int, default=300, help="sequential, per path")
    parser.add_argument("--load-queries", type=int, default=600, help="concurrent, per path")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--cypher-queries",
        type=int,
        default=10,
        help="neighbors as AGE Cypher vs SQL, sequential (each Cypher read takes seconds)",
    )
    parser.add_argument("--recall-queries", type=int, default=200, help="exact scans, 0: none")
    parser.add_argument(
        "--filtered-queries", type=int, default=200, help="with and without a 5 %% filter"
    )
    parser.add_argument("--ingest-docs", type=int, default=1200, help="per database, 0: none")
    parser.add_argument(
        "--ingest-seed", type=int, default=None, help="which documents (default: new each run)"
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--profile", action="store_true", help="sample the server with py-spy (extra pass)"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def _previous_build(output: Path, spec: Spec) -> dict[str, Any]:
    """The build timings an earlier run recorded for this very spec, if any."""
    try:
        earlier = json.loads(output.read_text())
    except (OSError, ValueError):
        return {}
    same = earlier.get("spec") == asdict(spec) | {"edges": spec.edges}
    data: dict[str, Any] = earlier.get("data", {})
    return data.get("build", {}) if same else {}


def _prepare(settings: Settings, spec: Spec, args: argparse.Namespace) -> dict[str, Any]:
    """Build the data unless it can be reused; what happened, with timings."""
    reason = "--rebuild" if args.rebuild else asyncio.run(stale_reason(settings, spec))
    if reason is None:
        return {"built_now": False, "build": _previous_build(args.output, spec)}
    print(f"building the data ({reason}) ...", file=sys.stderr)
    started = time.perf_counter()
    recreate(settings)
    migrated = time.perf_counter() - started
    phases = asyncio.run(load(settings, spec))
    total = time.perf_counter() - started
    print(f"built in {total:.0f} s: {phases}", file=sys.stderr)
    build = {"reason": reason, "migrate_s": migrated, **phases, "total_s": total}
    return {"built_now": True, "build": build}


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    if args.serve:
        serve()
        return
    spec = Spec(chunks=args.chunks, vertices=args.vertices)
    args.database = args.database or database_for(spec.chunks)
    settings = bench_settings(args.database, spec.dim)
    data = _prepare(settings, spec, args)
    print("measuring ...", file=sys.stderr)
    started, load_before = time.perf_counter(), os.getloadavg()
    empty = empty_database(args.database, spec.dim) if args.ingest_docs else None
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        ops, background = runner.run(measure(settings, spec, args))
        count, docs = args.recall_queries, args.ingest_docs
        quality = runner.run(search_quality(settings, spec, count)) if count else None
        narrow = args.filtered_queries
        filtered = runner.run(filtered_search(settings, spec, narrow)) if narrow else None
        writes = (
            runner.run(ingest_at_size(settings, empty, docs, args.concurrency, args.ingest_seed))
            if empty
            else None
        )
    report = {
        "spec": asdict(spec) | {"edges": spec.edges},
        "reader": asdict(READER),
        "data": data,
        "settings": {
            "db_pool_max": settings.db_pool_max,
            "search_ef_search": settings.search_ef_search,
            "search_max_scan_tuples": settings.search_max_scan_tuples,
            "search_exact_below": settings.search_exact_below,
            "search_exact_max_rows": settings.search_exact_max_rows,
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_1m_before_after": [load_before[0], os.getloadavg()[0]],
        },
        "measure_s": time.perf_counter() - started,
        "background": background,
        "ops": ops,
        "ratios": ratios(ops),
        "search_quality": quality,
        "filtered_search": filtered,
        "ingest_at_size": writes,
    }
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
