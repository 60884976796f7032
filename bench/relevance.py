"""Relevance benchmark: BEIR SciFact through Kenning's GraphQL API, with the local model.

Run from the repository root::

    .venv/bin/python -m bench.relevance [--quick] [--limit 300] [--workers 4]

The 5,183 abstracts (title + text, source URN = document id) go through the ``ingest``
mutation into this benchmark's own database (``kenning_bench_relevance``) with the local
embedder (all-MiniLM-L6-v2, offline). A database that already holds every document is
reused; otherwise each document is sent again and the content hash skips those already
stored without embedding them. The server is ``kenning serve`` in a process of its own on a
free loopback port, reached over HTTP with httpx. Then every one of the 300 test claims (its
text only) is searched in KEYWORD (BM25), VECTOR and HYBRID mode; chunks map to documents by
source URN, each document ranked by its best chunk, and nDCG@10 and recall@100 are computed
with binary relevance. Results go to stdout and ``bench/results/relevance.json``.

``--quick`` runs the first 50 test claims against 800 documents (every one judged relevant
to them plus a fixed random sample of the rest, ``bench.scifact.quick_subset``) in a
database of their own (``kenning_bench_relevance_quick``): a few minutes instead of the full
ingest. Fewer distractors make its figures higher than the full set's; the table and the
JSON say they are the quick subset.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import asdict

import asyncpg
import httpx

from bench._own_database import create_and_migrate, own_settings
from bench._processes import ROOT, Server, running_server
from bench._relevance_eval import REFERENCES, SEARCH, evaluate, graphql, table
from bench.scifact import (
    QUICK_DOCS,
    QUICK_QUERIES,
    Doc,
    load_docs,
    load_qrels,
    load_test_queries,
    quick_subset,
)
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchMode, config_for
from kenning.settings import EmbedderKind, Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.database_url import asyncpg_dsn
from kenning.storage.db.pool import create_pool

RESULTS = ROOT / "bench" / "results" / "relevance.json"
DATABASE = "kenning_bench_relevance"
QUICK_DATABASE = "kenning_bench_relevance_quick"
REDIS_DB = "13"
CLIENT = "scifact"
KIND = "scifact_abstract"
MODES = ("KEYWORD", "VECTOR", "HYBRID")
NOTES = (
    "KEYWORD is Okapi BM25 (k1 1.2, b 0.75) over PostgreSQL full-text lexemes, any wanted "
    "term matching. Documents are ranked by their best chunk (abstracts of 1,000+ characters "
    "make several chunks)."
)
FULL_SET = "BEIR SciFact test (300 queries, 5,183 documents)"
QUICK_SET = (
    f"quick subset of BEIR SciFact test ({QUICK_QUERIES} queries, {QUICK_DOCS:,} documents: "
    "those judged relevant to them plus a fixed random sample); not comparable with the "
    "full set's figures or the references"
)
# Abstracts make about two chunks each, and the chunks of one abstract tend to rank together,
# so 300 chunks leave at least 100 distinct documents for recall@100.
DEFAULT_CHUNKS = 300
MAX_LIMIT = 1000
REQUEST_TIMEOUT = 600.0

INGEST = """
mutation($input: IngestInput!) {
  ingest(input: $input) { __typename ... on IngestSuccess { status chunks { id } } }
}"""


def bench_settings(database: str = DATABASE) -> Settings:
    """The stack's settings (env overrides honoured) on this benchmark's database."""
    return own_settings(
        database,
        REDIS_DB,
        embedder=EmbedderKind.LOCAL,
        search_max_limit=MAX_LIMIT,
        log_json=False,
    )


def ensure_database(settings: Settings, database: str = DATABASE) -> None:
    """Create the benchmark database if missing, then migrate it."""
    create_and_migrate(settings, database)


async def stored_counts(settings: Settings) -> tuple[int, int]:
    """Documents and chunks the benchmark database holds for the SciFact client."""
    conn = await asyncpg.connect(asyncpg_dsn(settings.database_url))
    try:
        docs = await conn.fetchval("SELECT count(*) FROM sources WHERE client_id = $1", CLIENT)
        chunks = await conn.fetchval("SELECT count(*) FROM chunks WHERE client_id = $1", CLIENT)
    finally:
        await conn.close()
    return int(docs), int(chunks)


@asynccontextmanager
async def bench_key(settings: Settings) -> AsyncIterator[str]:
    """An agent key for the SciFact client, revoked when the run ends."""
    pool = await create_pool(settings, min_size=1)
    try:
        keys = PgApiKeys(pool)
        key, info = await keys.create(Scope(CLIENT), Role.AGENT, label="bench.relevance")
        try:
            yield key
        finally:
            await keys.revoke(info.id)
    finally:
        await pool.close()


def scifact_server(
    settings: Settings, key: str, workers: int
) -> AbstractAsyncContextManager[Server]:
    """``kenning serve`` on the benchmark database; its client has ``workers`` connections."""
    return running_server(settings, key, request_timeout=REQUEST_TIMEOUT, connections=workers)


async def ingest_all(client: httpx.AsyncClient, docs: Sequence[Doc], workers: int) -> int:
    """Send every document; return how many were indexed (the rest were unchanged)."""
    indexed = 0
    pending = iter(docs)
    started = time.perf_counter()

    async def worker() -> None:
        nonlocal indexed
        for doc in pending:
            document = {
                "sourceUrn": doc.id,
                "kind": KIND,
                "content": doc.content,
                "scope": {"clientId": CLIENT},
                "priority": 3,
            }
            result = (await graphql(client, INGEST, input=document))["ingest"]
            if result["__typename"] != "IngestSuccess":
                raise RuntimeError(f"document {doc.id} was not ingested: {result}")
            indexed += result["status"] == "INDEXED"
            if indexed and indexed % 500 == 0 and result["status"] == "INDEXED":
                rate = indexed / (time.perf_counter() - started)
                print(f"  {indexed} documents indexed ({rate:.1f}/s)", flush=True)

    async with asyncio.TaskGroup() as group:
        for _ in range(workers):
            group.create_task(worker())
    return indexed


async def run(args: argparse.Namespace) -> dict[str, object]:
    """Ingest if needed, evaluate every mode, return the report."""
    settings = bench_settings(QUICK_DATABASE if args.quick else DATABASE)
    docs = load_docs()
    qrels = load_qrels()
    queries = load_test_queries(qrels)
    if args.quick:
        docs, queries = quick_subset(docs, qrels, queries)
    stored_docs, _ = await stored_counts(settings)
    ingest_report: dict[str, object] = {"reused": stored_docs == len(docs)}
    async with bench_key(settings) as key, scifact_server(settings, key, args.workers) as server:
        client = server.client
        if stored_docs != len(docs):
            print(f"ingesting {len(docs)} documents ({stored_docs} already stored)", flush=True)
            started = time.perf_counter()
            indexed = await ingest_all(client, docs, args.workers)
            ingest_report.update(indexed=indexed, wall_s=round(time.perf_counter() - started, 1))
        stored_docs, stored_chunks = await stored_counts(settings)
        ingest_report.update(docs=stored_docs, chunks=stored_chunks)
        print(f"corpus: {stored_docs} documents, {stored_chunks} chunks", flush=True)
        # The first query pays for warm caches; it is not measured.
        await graphql(client, SEARCH, q="warm up", mode="HYBRID", limit=10)
        results = []
        for mode in args.modes:
            results.append(await evaluate(client, mode, queries, qrels, args.limit))
            print(f"  {mode}: done in {results[-1].wall_s} s", flush=True)
    print(QUICK_SET if args.quick else FULL_SET)
    print(table(results))
    print(NOTES)
    return {
        "dataset": QUICK_SET if args.quick else FULL_SET,
        "quick": args.quick,
        "embedder": "all-MiniLM-L6-v2 (local, offline)",
        "chunks_requested_per_query": args.limit,
        "ingest": ingest_report,
        "fusion": asdict(config_for(SearchMode.HYBRID).fusion),
        "results": [asdict(r) for r in results],
        "references_ndcg_at_10": REFERENCES,
        "notes": NOTES,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--limit", type=int, default=DEFAULT_CHUNKS, help="chunks per query")
    parser.add_argument("--workers", type=int, default=4, help="concurrent ingest requests")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--quick", action="store_true", help="50 queries over 800 documents")
    args = parser.parse_args(argv)
    database = QUICK_DATABASE if args.quick else DATABASE
    ensure_database(bench_settings(database), database)
    report = asyncio.run(run(args))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
