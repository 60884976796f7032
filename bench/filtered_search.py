"""Filtered search benchmark: p50 of search without a filter and with one keeping about 5 %
of the reader's chunks, in the same run, and the filtered answer's recall@10 against the
exact filtered answer, on ``bench.read``'s corpus of 100,000 chunks (``bench._read_filtered``
says how). ``bench.read`` runs the same measurement as its ``filtered_search`` row.

Run from the repository root::

    .venv/bin/python -m bench.filtered_search [--queries 200]

The corpus is built on the first run (as ``bench.read`` builds it) and reused after. Results
go to stdout and ``bench/results/filtered_search.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

from bench._read_corpus import Spec
from bench._read_data import bench_settings, database_for, ready
from bench._read_filtered import filtered_search

RESULTS = Path(__file__).resolve().parent / "results" / "filtered_search.json"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    spec = Spec()
    settings = bench_settings(database_for(spec.chunks), spec.dim)
    ready(settings, spec)
    report = asyncio.run(filtered_search(settings, spec, args.queries))
    text = json.dumps(report, indent=2)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n")


if __name__ == "__main__":
    main()
