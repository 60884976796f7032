"""Graph extraction benchmark: entity and triple precision/recall of Kenning's extraction on
a labelled set against any Ollama-compatible URL, and, against the fake Ollama on the real
stack, Kenning's own overhead per chunk and the model calls a re-ingest makes.

Run from the repository root::

    .venv/bin/python -m bench.extraction --url http://127.0.0.1:11434 --model qwen2.5:7b
    .venv/bin/python -m bench.extraction [--copies 10]      # fake Ollama, real stack

With ``--url`` every document of ``bench/data/extraction_set.json`` (33 short documents
labelled for this project, vocabulary in the file) goes through ``extract_graph`` and
``merge_extractions`` as a queued extraction does, one at a time; scores are micro over the
set on canonical node keys, triples directed (``bench/_extraction_scoring.py``). Without it
the fake Ollama answers every chunk from the labels (so its P/R is a harness check, 1.0 when
the harness is right) and the run measures, in database ``kenning_bench_extraction``
(dropped and rebuilt): the EXTRACTING stage per chunk minus time inside model calls (goal
<= 5 ms), a plain script making the same calls, re-ingest of unchanged content (goal: 0
model calls) and after one document changed (goal: its chunks only).
Results go to stdout and ``bench/results/extraction.json`` (a model run:
``extraction_<model>.json``, e.g. ``extraction_qwen2_5_7b.json``), or ``--output``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvloop

from bench._extraction_overhead import corpus, joined_corpus
from bench._extraction_quality import QualityRun, measure_quality
from bench._extraction_replies import labelled_replier
from bench._extraction_report import overhead_table, quality_json, quality_table
from bench._extraction_set import SET_PATH, LabelledSet, load_set
from bench._extraction_stack import run_shapes
from bench._own_database import own_settings, recreate_and_migrate
from kenning.domain.extraction.graph_extraction import EXTRACT_PROMPT_VERSION
from kenning.domain.models.ports import ModelCallError
from kenning.router.demo import FakeOllama
from kenning.settings import Settings
from kenning.storage.models.ollama import OllamaModelClient

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DATABASE = "kenning_bench_extraction"
REDIS_DB = "9"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an Ollama-compatible base URL; without it, the fake")
    parser.add_argument("--model", default=Settings().model_extract)
    parser.add_argument("--max-retries", type=int, default=Settings().model_max_retries)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per model call")
    parser.add_argument("--copies", type=int, default=10, help="fake run: copies of the set")
    parser.add_argument("--set", type=Path, default=SET_PATH, help="the labelled set")
    parser.add_argument("--output", type=Path)
    return parser.parse_args(argv)


async def _quality(args: argparse.Namespace, labelled: LabelledSet, url: str) -> QualityRun:
    client = OllamaModelClient(url, timeout=args.timeout)
    try:
        return await measure_quality(
            client, labelled, model=args.model, max_retries=args.max_retries
        )
    finally:
        await client.aclose()


def _slug(model: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in model)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    labelled = load_set(args.set)
    report: dict[str, Any] = {"prompt_version": EXTRACT_PROMPT_VERSION, "set": str(args.set)}
    if args.url:
        try:
            run = uvloop.run(_quality(args, labelled, args.url))
        except ModelCallError as error:
            print(f"{args.url} could not answer: {error.message}", file=sys.stderr)
            print(
                f"is Ollama up, and the model pulled (ollama pull {args.model})?", file=sys.stderr
            )
            return 2
        print(quality_table(run, f"model at {args.url}"))
        report |= {"mode": "model", "url": args.url, "quality": quality_json(run)}
        output = args.output or RESULTS / f"extraction_{_slug(args.model)}.json"
    else:
        load_before = os.getloadavg()[0]
        settings = own_settings(DATABASE, REDIS_DB)
        recreate_and_migrate(settings, DATABASE)
        fake = FakeOllama("bench-extraction")
        fake.replier = labelled_replier(labelled)
        fake.start()
        try:
            run = uvloop.run(_quality(args, labelled, fake.url))
            shapes = {
                "one document per source": corpus(labelled, args.copies),
                "whole set per source": joined_corpus(labelled, args.copies),
            }
            figures = uvloop.run(
                run_shapes(
                    settings, fake.url, model=args.model, max_retries=args.max_retries,
                    shapes=shapes,
                )
            )  # fmt: skip
        finally:
            fake.stop()
        print(quality_table(run, "fake (harness check)"))
        for shape, shape_figures in figures.items():
            print(overhead_table(shape, shape_figures))
        report |= {
            "mode": "fake",
            "quality_fake_harness_check": quality_json(run),
            "overhead": figures,
            # Shared machines: timings move with the load, the ratio to the plain script less.
            "machine": {
                "cpus": os.cpu_count(),
                "load_1m_before": round(load_before, 2),
                "load_1m_after": round(os.getloadavg()[0], 2),
            },
        }
        output = args.output or RESULTS / "extraction.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"results: {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
