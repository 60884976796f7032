"""Code benchmark: files/s of the code source on this repository, against tree-sitter parsing
alone measured in the same run.

Run from the repository root::

    .venv/bin/python -m bench.code [--repeat 3]

The files are those ``git`` tracks at ``HEAD`` under ``kenning/``, ``tests/`` and
``web/console/src`` that the code source selects.

- ``parse_only`` (baseline): tree-sitter parsing of every file, nothing else.
- ``structure``: ``parse_files`` (definitions, signatures, imports) plus ``code_requests``
  (chunks by definition, keys, evidence-bearing edges): everything before storage.
- ``end_to_end``: read from git, parse, build the requests and store each through the real
  ``ingest_graph`` into the benchmark's own database (``kenning_bench_code``, recreated)
  with the hash embedder; then ``reingest_unchanged``, the same commit again (every file
  skipped by its content hash). Goal: at least 20 files/s end to end.
- ``--embedder local``: the same with the default local model (all-MiniLM-L6-v2 on the
  CPU), as ``kenning ingest-repo`` runs on a machine without Ollama, plus
  ``embedding_alone`` (baseline): every piece's embedding text through the same model in a
  plain loop, 32 at a time. Goal: the whole repository in at most 5 minutes.

Results go to stdout and ``bench/results/code.json`` (``code_local.json`` with the local
embedder).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from tree_sitter import Parser

from bench._own_database import own_settings, recreate_and_migrate
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import batched
from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.sources.code import (
    CodeContext,
    PathIndex,
    code_requests,
    parse_files,
    select_files,
)
from kenning.domain.sources.code.runner_files import FILES_AT_ONCE, ingest_files
from kenning.domain.sources.code.selection import selected_path
from kenning.runtime import Runtime
from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.sources.code import GitCli, TreeSitterParser
from kenning.storage.sources.code.grammars import grammar

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "code.json"
RESULTS_LOCAL = ROOT / "bench" / "results" / "code_local.json"
DATABASE = "kenning_bench_code"
REDIS_DB = "12"
FOLDERS = ("kenning/", "tests/", "web/console/src/")
SCOPE = Scope("bench", "", "")
GOAL_FILES_PER_SECOND = 20.0
GOAL_LOCAL_SECONDS = 300.0


def _rate(files: int, seconds: float) -> dict[str, float]:
    return {"seconds": round(seconds, 3), "files_per_second": round(files / seconds, 1)}


def parse_only(contents: dict[str, bytes], repeat: int) -> float:
    """Best of ``repeat`` runs of tree-sitter parsing alone."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for path, content in contents.items():
            language = selected_path(path)
            if language is not None:
                Parser(grammar(language)).parse(content)
        best = min(best, time.perf_counter() - started)
    return best


def structure(contents: dict[str, bytes], context: CodeContext, repeat: int) -> dict[str, Any]:
    """Best of ``repeat`` runs of parsing plus request building, and what it built."""
    best, built = float("inf"), []
    for _ in range(repeat):
        started = time.perf_counter()
        parsed, _ = parse_files(contents, TreeSitterParser())
        built = code_requests(parsed, context)
        best = min(best, time.perf_counter() - started)
    return {
        **_rate(len(contents), best),
        "requests": len(built),
        "pieces": sum(len(r.pieces) for r in built),
        "nodes": sum(len(r.nodes) for r in built),
        "edges": sum(len(r.edges) for r in built),
        "built": built,
    }


async def _no_checkpoint() -> None:
    return None


async def embedding_alone(texts: list[str], settings: Settings) -> dict[str, Any]:
    """The model alone: ``texts`` embedded 32 at a time, one call after another."""
    embedder = create_embedder(settings)
    try:
        await embedder.embed(texts[:1])  # load the model before the clock starts
        started = time.perf_counter()
        for batch in batched(texts, 32):
            await embedder.embed(batch)
        seconds = time.perf_counter() - started
    finally:
        await embedder.aclose()
    rate = round(len(texts) / seconds, 1)
    return {"texts": len(texts), "seconds": round(seconds, 3), "texts_per_second": rate}


async def end_to_end(
    git: GitCli, commit: str, files: list[str], width: int, settings: Settings
) -> dict[str, Any]:
    """Read, parse, build and store every file, ``width`` files at once as the repository
    runner does, then the same commit again (the database must be fresh: see ``main``)."""
    pool = await create_pool(settings)
    redis = aioredis.from_url(settings.redis_url)
    runtime = Runtime(settings=settings, pool=pool, redis=redis, embedder=create_embedder(settings))
    context = CodeContext("kenning", "main", SCOPE, PathIndex(files))
    report: dict[str, Any] = {}
    try:
        for phase in ("end_to_end", "reingest_unchanged"):
            started = time.perf_counter()
            parsed, skipped = parse_files(git.read(commit, files), TreeSitterParser())
            requests = code_requests(parsed, context)
            deps = runtime.ingest_deps()
            applied = await ingest_files(requests, SCOPE, deps, _no_checkpoint, width=width)
            seconds = time.perf_counter() - started
            statuses: dict[str, int] = {}
            for outcome in applied.outcomes:
                status = outcome.outcome.status.value
                statuses[status] = statuses.get(status, 0) + 1
            rejected = sum(len(o.rejected) for o in applied.outcomes)
            report[phase] = {**_rate(len(files), seconds), "statuses": statuses,
                             "rejected_items": rejected, "skipped_files": len(skipped),
                             "refused_files": len(applied.refused)}  # fmt: skip
        report["chunks_stored"] = await pool.fetchval("SELECT count(*) FROM chunks")
        unchanged = report["reingest_unchanged"]["statuses"]
        if set(unchanged) != {IngestStatus.SKIPPED_DUPLICATE.value}:
            raise RuntimeError(f"re-ingest of an unchanged commit stored again: {unchanged}")
    finally:
        await redis.aclose()
        await pool.close()
    return report


def main(argv: list[str] | None = None) -> None:
    """Measure and write ``bench/results/code.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--embedder",
        choices=[EmbedderKind.HASH.value, EmbedderKind.LOCAL.value],
        default=EmbedderKind.HASH.value,
        help="hash (default: storage alone) or local (the default model, as ingest-repo runs)",
    )
    parser.add_argument(
        "--files-at-once",
        type=int,
        default=FILES_AT_ONCE,
        help=f"files stored concurrently (default {FILES_AT_ONCE}, the runner's)",
    )
    args = parser.parse_args(argv)
    git = GitCli(ROOT)
    commit = git.head()
    tracked = [f for f in git.tracked_files(commit) if f.path.startswith(FOLDERS)]
    files = select_files(tracked)
    contents = dict(git.read(commit, files))
    context = CodeContext("kenning", "main", SCOPE, PathIndex(files))
    baseline = parse_only(contents, args.repeat)
    built = structure(contents, context, args.repeat)
    settings = own_settings(DATABASE, REDIS_DB, embedder=EmbedderKind(args.embedder))
    recreate_and_migrate(settings, DATABASE)
    stored = asyncio.run(end_to_end(git, commit, files, args.files_at_once, settings))
    if settings.embedder is EmbedderKind.LOCAL:
        texts = [p.embedding_text or p.content for r in built.pop("built") for p in r.pieces]
        stored["embedding_alone"] = asyncio.run(embedding_alone(texts, settings))
        seconds = stored["end_to_end"]["seconds"]
        stored["goal_seconds"] = GOAL_LOCAL_SECONDS
        stored["local_goal_met"] = seconds <= GOAL_LOCAL_SECONDS
    built.pop("built", None)
    result = {
        "commit": commit,
        "embedder": args.embedder,
        "files_at_once": args.files_at_once,
        "files": len(files),
        "bytes": sum(len(c) for c in contents.values()),
        "languages": sorted({str(selected_path(p)) for p in files}),
        "parse_only": _rate(len(files), baseline),
        "structure": built,
        **stored,
        "goal_files_per_second": GOAL_FILES_PER_SECOND,
        "goal_met": stored["end_to_end"]["files_per_second"] >= GOAL_FILES_PER_SECOND,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }
    written = RESULTS_LOCAL if settings.embedder is EmbedderKind.LOCAL else RESULTS
    written.write_text(json.dumps(result, indent=2) + "\n")
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
