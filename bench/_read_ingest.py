"""Ingest at size: the same small documents through Kenning's ``ingest`` use case into the
read benchmark's database and into an empty, freshly migrated one, in alternating rounds.

The documents are ``bench.corpus`` documents joined two or three at a time (3-6 chunks
each), under the source prefix ``bench-read-ingest:``. They are written with the server's
storage adapters (``PgKnowledgeStore``, ``PgAliasRegistry``) and the corpus's words
embedder, at ``SCOPE``: the reader's client, so the chunks land in the partition the corpus
fills, and a project no loaded row uses, so no loaded vertex is touched and purging deletes
only what the ingest created. First both databases settle (no vacuum running, a
checkpoint: see ``settle``) and take one share of extra documents, unmeasured: it opens
their pools' connections, which the database measured first would otherwise open inside
its first round. Each round then sends one share of the documents to one database, then the
same share to the other (which goes first alternates), ``concurrency`` in flight. Shares
of 50 documents (400 in all) swung from 0.5 to 1.0 at a million chunks and whole runs from
0.73 to 0.88; ``bench.read`` sends 1,200.
Afterwards every ingested source is purged from the big database through ``remove_stored_source``
and its row counts are checked against those before, so the data stays reusable.

Each run draws new documents (``seed``, random unless given, is in the result): new text,
vectors and commit keys under the same URNs and ticket keys. The same documents again would
meet their own previous elements in the partition's HNSW graph, which the purge's vacuum
leaves in a state where inserting the same vectors again took 900 buffer hits a chunk
instead of the 1,800-2,000 a new document takes: at a million chunks the ratio read
0.87-0.93 every other run. (The BM25 statistics keep a row counting zero for each word
only a purged run brought, such as its commit hashes.) The warm-up share comes first in a
seed's draw, so a seed given before it came in now draws other measured documents.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import asyncpg

from bench._read_corpus import READER
from bench._read_data import bench_settings, recreate
from bench._read_measure import Latency
from bench.corpus import Document, documents
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.purge import remove_stored_source
from kenning.domain.ingestion.request import IngestRequest, IngestStatus
from kenning.settings import Settings
from kenning.storage.db.database_url import database_name
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.ingestion.alias_registry import PgAliasRegistry
from kenning.storage.ingestion.knowledge_store import PgKnowledgeStore

URN_PREFIX = "bench-read-ingest:"
SCOPE = Scope(READER.client_id, "bench-ingest", "")
ROUNDS = 8  # paired rounds: a burst of autovacuum or checkpoint I/O spoils one, not the ratio


def empty_database(database: str, dim: int) -> Settings:
    """A freshly migrated database beside ``database`` (dropped first if it exists); sync,
    as Alembic runs its own event loop."""
    settings = bench_settings(f"{database}_empty", dim)
    recreate(settings)
    return settings


def ingest_documents(count: int, seed: int) -> list[Document]:
    """``count`` documents of two or three corpus documents each (``bench.corpus`` drawn
    with ``seed``), under ``URN_PREFIX``."""
    parts = documents(count * 5 // 2 + 2, seed=seed)
    found, start = [], 0
    for index in range(count):
        joined = parts[start : start + 2 + index % 2]
        start += len(joined)
        content = "\n\n".join(part.content for part in joined)
        first = joined[0]
        found.append(Document(f"{URN_PREFIX}{index}", first.kind, first.main_node_key, content))
    return found


@dataclass(slots=True)
class _Tally:
    seconds: list[float] = field(default_factory=list)
    wall: float = 0.0
    chunks: int = 0
    rounds: list[float] = field(default_factory=list)  # docs/s of each round

    def result(self) -> dict[str, Any]:
        count = len(self.seconds)
        return {
            "documents": count,
            "chunks": self.chunks,
            "wall_s": self.wall,
            "docs_per_s": count / self.wall if self.wall else float("nan"),
            "chunks_per_s": self.chunks / self.wall if self.wall else float("nan"),
            "latency": asdict(Latency.of(self.seconds)),
        }


def _deps(pool: asyncpg.Pool, settings: Settings) -> IngestDeps:
    """What ``Runtime.ingest_deps`` builds, with the benchmark's (words) embedder."""
    return IngestDeps(
        PgKnowledgeStore(pool, settings.graph_name),
        PgAliasRegistry(pool),
        create_embedder(settings),
        secret_policy=settings.secret_policy,
        chunk_limit=settings.chunk_limit,
    )


async def _send(deps: IngestDeps, docs: Sequence[Document], workers: int, tally: _Tally) -> None:
    pending = iter(docs)  # shared: each document is taken by one worker, once

    async def worker() -> None:
        for doc in pending:
            request = IngestRequest(
                doc.source_urn, doc.kind, doc.content, SCOPE, main_node_key=doc.main_node_key
            )
            started = time.perf_counter()
            outcome = await ingest(request, deps)
            tally.seconds.append(time.perf_counter() - started)
            if outcome.status is not IngestStatus.INDEXED:
                raise RuntimeError(f"{doc.source_urn}: {outcome.status}, not INDEXED")
            tally.chunks += len(outcome.chunk_ids)

    started = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(workers):
            group.create_task(worker())
    wall = time.perf_counter() - started
    tally.wall += wall
    tally.rounds.append(len(docs) / wall)


async def _counts(pool: asyncpg.Pool, graph: str) -> tuple[int, int, int]:
    return (
        await pool.fetchval("SELECT count(*) FROM chunks"),
        await pool.fetchval(f'SELECT count(*) FROM {graph}."Entity"'),
        await pool.fetchval(f'SELECT count(*) FROM {graph}."REL"'),
    )


async def purge_ingested(pool: asyncpg.Pool, settings: Settings) -> int:
    """Purge every source under ``URN_PREFIX`` at ``SCOPE`` through the domain; how many."""
    rows = await pool.fetch(
        "SELECT source_urn FROM sources WHERE client_id = $1 AND project_id = $2 "
        "AND group_id = $3 AND starts_with(source_urn, $4) ORDER BY source_urn",
        SCOPE.client_id, SCOPE.project_id, SCOPE.group_id, URN_PREFIX,
    )  # fmt: skip
    store = PgKnowledgeStore(pool, settings.graph_name)
    for row in rows:
        await remove_stored_source(SCOPE, row["source_urn"], store)
    return len(rows)


async def settle(pool: asyncpg.Pool, databases: Sequence[str], limit: float = 600.0) -> float:
    """Wait until no (auto)vacuum runs in ``databases``, at most ``limit`` s, then
    checkpoint; the seconds waited. A previous run's purge leaves an HNSW vacuum of the
    partition behind (over a minute at a million chunks) that would otherwise land in
    whichever database's rounds it overlaps, moving the ratio by 0.3 either way."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if not await vacuums_running(pool, databases):
            break
        await asyncio.sleep(1.0)
    await pool.execute("CHECKPOINT")  # the stack's role is a superuser
    return time.perf_counter() - started


async def vacuums_running(pool: asyncpg.Pool, databases: Sequence[str]) -> int:
    """(Auto)vacuums running in ``databases`` now."""
    count = await pool.fetchval(
        "SELECT count(*) FROM pg_stat_progress_vacuum WHERE datname = ANY($1::text[])",
        list(databases),
    )
    return int(count)


async def maintenance_runs(pool: asyncpg.Pool) -> int:
    """Autovacuum and autoanalyze runs finished in ``pool``'s database so far: a run
    during a measurement takes CPU and cache from it (a search pass that overlapped a
    vacuum of ``bm25_postings`` at a million chunks, on a server with cold caches, read
    HYBRID five times slower)."""
    total = await pool.fetchval(
        "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_all_tables"
    )
    return int(total)


async def vacuum_purged(pool: asyncpg.Pool, graph: str) -> float:
    """``VACUUM (ANALYZE)`` what a purge dirtied (the reader's chunk partition with its HNSW
    graph and its ``chunk_vectors`` partition, the BM25 statistics, sources, the AGE vertex
    and edge tables, ``bm25_postings``), so the next run does not meet this run's cleanup as
    an autovacuum mid-measurement, nor its dead postings in KEYWORD's reads; the seconds it
    took. The postings' vacuum cleans their index (migration 0023): a run leaves about
    0.6 % of them dead, 337,000 at a million chunks, and three runs' left in the index had
    slowed sentence queries by KEYWORD from 27.6 to 39.6 ms p50."""
    started = time.perf_counter()
    partitions = [
        await pool.fetchval(
            f"SELECT tableoid::regclass::text FROM {parent} WHERE client_id = $1 LIMIT 1",
            SCOPE.client_id,
        )
        for parent in ("chunks", "chunk_vectors")
    ]
    tables = ["bm25_terms", "bm25_lengths", "bm25_postings", "sources", "source_mentions"]
    tables += [f'{graph}."Entity"', f'{graph}."REL"']  # graph: a checked setting
    for table in [*filter(None, partitions), *tables]:
        await pool.execute(f"VACUUM (ANALYZE) {table}")  # names from the catalog or above
    return time.perf_counter() - started


async def ingest_at_size(
    big: Settings, empty: Settings, count: int, concurrency: int, seed: int | None = None
) -> dict[str, Any]:
    """Docs/s into the big database and into the empty one, alternating; ratio big/empty.
    ``seed``: which documents (a new random draw when ``None``)."""
    seed = secrets.randbits(31) if seed is None else seed
    size = -(-count // ROUNDS)
    drawn = ingest_documents(size + count, seed)
    warm_up, docs = drawn[:size], drawn[size:]  # one share each database takes unmeasured
    pools = {
        "corpus": await create_pool(big, min_size=1),
        "empty": await create_pool(empty, min_size=1),
    }
    try:
        leftover = await purge_ingested(pools["corpus"], big)  # from a run that stopped
        before = await _counts(pools["corpus"], big.graph_name)
        databases = [database_name(big.database_url), database_name(empty.database_url)]
        waited = await settle(pools["corpus"], databases)
        deps = {"corpus": _deps(pools["corpus"], big), "empty": _deps(pools["empty"], empty)}
        for name in deps:
            await _send(deps[name], warm_up, concurrency, _Tally())
        tallies = {name: _Tally() for name in deps}
        for index, start in enumerate(range(0, len(docs), size)):
            names = ["corpus", "empty"] if index % 2 == 0 else ["empty", "corpus"]
            for name in names:
                await _send(deps[name], docs[start : start + size], concurrency, tallies[name])
        purged = await purge_ingested(pools["corpus"], big)
        after = await _counts(pools["corpus"], big.graph_name)
        tidied = await vacuum_purged(pools["corpus"], big.graph_name)
    finally:
        for pool in pools.values():
            await pool.close()
    if after != before or purged != len(warm_up) + len(docs):
        raise RuntimeError(f"purge left the corpus at {after} rows, not {before} ({purged})")
    found = {name: tally.result() for name, tally in tallies.items()}
    corpus, bare = found["corpus"]["docs_per_s"], found["empty"]["docs_per_s"]
    paired = [a / b for a, b in zip(tallies["corpus"].rounds, tallies["empty"].rounds, strict=True)]
    return {
        **found,
        "concurrency": concurrency,
        "documents_seed": seed,
        "rounds": len(paired),
        "warm_up_documents": len(warm_up),
        "corpus_chunks_before": before[0],
        "ratio_corpus_over_empty": corpus / bare if bare else float("nan"),
        "settle_wait_s": waited,
        "vacuum_after_purge_s": tidied,
        "round_ratios": paired,
        "round_docs_per_s": {name: tally.rounds for name, tally in tallies.items()},
        "ratio_median_of_rounds": statistics.median(paired),
        "purged_sources": purged,
        "leftover_sources_purged_first": leftover,
        "counts_restored": after == before,
    }
