"""Erasure benchmark: how long does erasing a person mentioned in 1,000 chunks take (REDACT:
every chunk rewritten without the name and embedded again)? Issue 37's goal: <= 30 s.

Run from the repository root::

    .venv/bin/python -m bench.erasure [--chunks 1000] [--embedder both]

Its own database, ``kenning_bench_erasure``, is rebuilt every run. Per embedder (``hash``, the
cheap deterministic one, and ``local``, all-MiniLM-L6-v2 in process), one round writes
``--chunks`` chunks naming Zephyrine Quillfeather (documents of ten paragraphs of plain
prose, each a chunk, each naming her once), as many that do not, and her node with edges,
through the GraphQL ``ingest`` mutation in process. The baseline first: what the same change
costs by hand, a read of the chunks naming her, the name replaced in Python, the new texts
embedded with the same embedder, one plain SQL ``UPDATE`` of content and embedding (the
chunks' triggers and indexes kept as for the erasure), in a transaction rolled back. Then
``eraseSubject(mode: REDACT)`` is asked and its job run by the queue's runner, timed from
the request to the job's end. (The plain ``UPDATE`` of 1,000 contents is slow on its own:
the keyword index's update trigger matches old to new rows, 20 s and more here; the erasure
deletes and inserts the rows instead, see ``kenning.storage.erasure.chunk_rewrite``.)

Results go to stdout and ``bench/results/erasure.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import uvloop

from bench._own_database import own_settings, recreate_and_migrate
from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.graphql.context import Context
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "erasure.json"
DATABASE = "kenning_bench_erasure"
REDIS_DB = "11"
GOAL_S = 30.0
NAME, KEY = "Zephyrine Quillfeather", "person:zephyrine-quillfeather"
PARAGRAPHS = 10
ADMIN = Principal(key_id="bench-admin", scope=Scope("bench"), role=Role.ADMIN)
_SCHEMA = build_schema()

INGEST = """mutation I($urn: String!, $content: String!, $rels: [String!]!) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: $content, relationships: $rels}) {
    __typename ... on Error { code message } } }"""
ERASE = """mutation E($key: String!) { eraseSubject(key: $key, mode: REDACT) {
  __typename ... on ErasureRequested { receipt { id } } ... on Error { code message } } }"""
RECEIPTS = "{ erasureReceipts(first: 1) { status counts { kind count } } }"


def _paragraph(doc: int, n: int, named: bool) -> str:
    # Plain prose of about 650 characters: two never fit in one chunk (limit 1,000), so each
    # paragraph is one chunk.
    who = f"{NAME} reviewed" if named else "The team reviewed"
    return (
        f"{who} part {n} of design document {doc}. The review covered the storage layer, "
        "the retry policy of the queue workers and the way search results are ranked for "
        "agents. Open questions were written down for the next meeting, together with the "
        "owner of each follow-up and the dates agreed with the platform team. Nobody "
        f"objected to the plan for release {doc}.{n}, and the notes were shared the same day. "
        "The next review will look at the migration of the older services, the cost of the "
        "nightly jobs and what the support team asked for during the last incident."
    )


def _document(doc: int, named: bool) -> str:
    return "\n\n".join(_paragraph(doc, n, named) for n in range(PARAGRAPHS))


async def _call(runtime: Runtime, query: str, **variables: Any) -> dict[str, Any]:
    result = await _SCHEMA.execute(
        query, variable_values=variables, context_value=Context(runtime=runtime, principal=ADMIN)
    )
    assert result.errors is None and result.data is not None, result.errors
    return result.data


async def _write_corpus(runtime: Runtime, chunks: int) -> None:
    docs = max(1, chunks // PARAGRAPHS)
    for doc in range(docs):
        for named in (True, False):
            rels = [f"{KEY}|reviewed|doc:d{doc}"] if named else []
            urn = f"doc:{'named' if named else 'other'}-{doc}"
            done = await _call(runtime, INGEST, urn=urn, content=_document(doc, named), rels=rels)
            assert done["ingest"]["__typename"] == "IngestSuccess", done


async def _named_chunks(runtime: Runtime) -> int:
    return int(
        await runtime.pool.fetchval(
            "SELECT count(*) FROM chunks WHERE client_id = 'bench' AND content ILIKE $1",
            "%zephyrine quillfeather%",
        )
    )


async def _erasure_s(runtime: Runtime) -> tuple[float, dict[str, int]]:
    started = time.perf_counter()
    asked = await _call(runtime, ERASE, key=KEY)
    assert asked["eraseSubject"]["__typename"] == "ErasureRequested", asked
    claimed = await runtime.queue.work.claim(Lane.PRIORITY, "bench/erasure", 600)
    assert claimed is not None
    status = await run_job(claimed, runtime.queue.work, runtime.job_deps())
    took = time.perf_counter() - started
    assert status is JobStatus.INDEXED, status
    receipt = (await _call(runtime, RECEIPTS))["erasureReceipts"][0]
    assert receipt["status"] == "DONE"
    return took, {c["kind"]: c["count"] for c in receipt["counts"] if c["count"]}


async def _baseline_s(runtime: Runtime) -> tuple[float, int]:
    """The same change by hand, rolled back: read the chunks naming her, replace the name,
    embed the new texts with the same embedder, one plain SQL ``UPDATE``."""
    async with runtime.pool.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        started = time.perf_counter()
        rows = await conn.fetch(
            "SELECT id, content FROM chunks WHERE client_id = 'bench' AND content ILIKE $1",
            "%zephyrine quillfeather%",
        )
        texts = [r["content"].replace(NAME, "[erased]") for r in rows]
        vectors = []
        for start in range(0, len(texts), 128):
            vectors += await runtime.embedder.embed(texts[start : start + 128], priority=0)
        await conn.execute(
            """UPDATE chunks c SET content = u.content, embedding = u.embedding::vector
               FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, content, embedding)
               WHERE c.client_id = 'bench' AND c.id = u.id""",
            [r["id"] for r in rows],
            texts,
            ["[" + ",".join(map(str, v)) + "]" for v in vectors],
        )
        took = time.perf_counter() - started
        await transaction.rollback()
    return took, len(rows)


async def _round(settings: Settings, chunks: int) -> dict[str, Any]:
    pool = await create_pool(settings)
    redis = aioredis.from_url(settings.redis_url)
    runtime = Runtime(settings=settings, pool=pool, redis=redis, embedder=create_embedder(settings))
    try:
        await runtime.embedder.embed(["warm up"])
        kind = settings.embedder.value
        print(
            f"{kind}: writing {chunks} chunks naming her and {chunks} others ...", file=sys.stderr
        )
        await _write_corpus(runtime, chunks)
        # Statistics as a database in use has them (autovacuum's), for both measurements.
        await pool.execute("ANALYZE")
        named = await _named_chunks(runtime)
        baseline_s, updated = await _baseline_s(runtime)
        erasure_s, counts = await _erasure_s(runtime)
        assert await _named_chunks(runtime) == 0
    finally:
        await runtime.embedder.aclose()
        await redis.aclose()
        await pool.close()
    return {
        "chunks_named": named,
        "erasure_s": round(erasure_s, 3),
        "counts": counts,
        "baseline_s": round(baseline_s, 4),
        "baseline_rows": updated,
        "ratio": round(erasure_s / baseline_s, 2),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1000, help="chunks naming her")
    parser.add_argument("--embedder", choices=("hash", "local", "both"), default="both")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    kinds = ["hash", "local"] if args.embedder == "both" else [args.embedder]
    report: dict[str, Any] = {"cpus": os.cpu_count(), "goal_s": GOAL_S, "runs": {}}
    for kind in kinds:
        settings = own_settings(DATABASE, REDIS_DB, embedder=EmbedderKind(kind))
        recreate_and_migrate(settings, DATABASE)
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            report["runs"][kind] = runner.run(_round(settings, args.chunks))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(render(report))


def render(report: dict[str, Any]) -> str:
    """One line per embedder: the erasure's time, the baseline's, their ratio, the goal."""
    lines = []
    for kind, run in report["runs"].items():
        lines.append(
            f"erase a person in {run['chunks_named']} chunks (REDACT), {kind} embedder: "
            f"{run['erasure_s']:.2f} s (goal <= {report['goal_s']:g} s); embed + plain SQL UPDATE "
            f"{run['baseline_s']:.2f} s: x{run['ratio']}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
