"""Whether the fast search statements miss anything: the scoped vector search against the
exact scoped answer, and KEYWORD's top-k statement against the one that scores every posting.

- ``vector_recall``: each query's embedding (as the server's words embedder makes it) goes
  through the server's vector search (``SqlReads.nearest_rows``: the HNSW probe, then the
  HNSW statement with its scan settings or the exact scan of ``chunk_vectors`` when the
  probe is low on similarity; the share of queries the exact scan answered is reported),
  10 deep and HYBRID's candidate depth deep, and through the
  same statement with the inner order written ``(embedding <=> $4) + 0``: no index can serve
  that order, so PostgreSQL computes the distance of every visible row of the reader's
  partitions, the exact answer. ``EXPLAIN`` checks the exact statement uses no HNSW index
  (else the run stops) and records whether the server's does (when it does not, a recall of
  1.0 says nothing).
- ``keyword_agreement``: KEYWORD's answer as ``PgChunkIndex.matching`` gives it (the top-k
  statement, the exhaustive one when fewer than the limit came back) against
  ``matching_exhaustive``'s, ``KEYWORD_DEPTH`` deep, both timed one at a time, interleaved.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, cast

import asyncpg

from bench._read_corpus import READER, Spec, search_queries
from bench._read_measure import Latency, interleaved
from bench._read_paths import SEARCH_LIMIT, SqlReads
from kenning.domain.retrieval.search import CandidateDepth
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.retrieval import vector_sql

RECALL_K = SEARCH_LIMIT
KEYWORD_DEPTH = 20
_TIE = 1e-9  # distances are float8 of the same float4 vectors on both sides

_INNER_ORDER = "ORDER BY c.embedding <=> $4 LIMIT"
_EXACT_ORDER = "ORDER BY (c.embedding <=> $4) + 0 LIMIT"


def recall_at(
    found: Sequence[tuple[str, float]], exact: Sequence[tuple[str, float]], k: int
) -> float:
    """Share of the exact top ``k`` (id, distance) that ``found``'s top ``k`` holds; a found
    row as near as the exact ``k``-th counts too (which of equal rows is ``k``-th is
    arbitrary). 1.0 when nothing is visible.

    Example: ``recall_at([("a", .1), ("c", .3)], [("a", .1), ("b", .2)], 2) == 0.5``.
    """
    wanted = exact[:k]
    if not wanted:
        return 1.0
    ids = {key for key, _ in wanted}
    edge = wanted[-1][1] + _TIE if len(wanted) == k else -1.0
    hits = sum(1 for key, distance in found[:k] if key in ids or distance <= edge)
    return min(hits, len(wanted)) / len(wanted)


def overlap_at(found: Sequence[str], exact: Sequence[str], k: int) -> float:
    """Share of the exact top ``k`` ids that ``found``'s top ``k`` holds; 1.0 when both are
    empty. Example: ``overlap_at(["a", "b"], ["b", "c"], 2) == 0.5``."""
    wanted = set(exact[:k])
    if not wanted:
        return 1.0 if not found else 0.0
    return len(wanted & set(found[:k])) / len(wanted)


def summary(values: Sequence[float]) -> dict[str, float]:
    """Mean, minimum and count of per-query figures."""
    return {
        "mean": sum(values) / len(values) if values else float("nan"),
        "min": min(values, default=float("nan")),
        "count": len(values),
    }


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else float("nan")


def exact_text(nearest: str) -> str:
    """The server's nearest statement with an inner order no index can serve."""
    if nearest.count(_INNER_ORDER) != 1:
        raise RuntimeError("the nearest statement's inner ORDER BY changed; update the bench")
    return nearest.replace(_INNER_ORDER, _EXACT_ORDER)


def _index_names(plan: Any) -> set[str]:
    """Every index an EXPLAIN (FORMAT JSON) plan reads."""
    found: set[str] = set()
    if isinstance(plan, dict):
        if "Index Name" in plan:
            found.add(plan["Index Name"])
        for value in plan.values():
            found |= _index_names(value)
    elif isinstance(plan, list):
        for item in plan:
            found |= _index_names(item)
    return found


async def plan_uses_hnsw(
    pool: asyncpg.Pool, text: str, args: Sequence[object], scan: Sequence[str] = ()
) -> bool:
    """Whether ``text``'s plan reads an HNSW index, planned under the scan settings ``scan``
    (``SCAN_SETTINGS``' values) when given: the planner's choice between the index and an
    exact scan of a partition depends on ``hnsw.ef_search``."""
    async with pool.acquire() as conn, conn.transaction():
        if scan:
            await conn.execute(vector_sql.SCAN_SETTINGS, *scan)
        plan = await conn.fetchval(f"EXPLAIN (FORMAT JSON) {text}", *args)
    hnsw = await pool.fetch(
        "SELECT indexrelid::regclass::text AS name FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
        "WHERE a.amname = 'hnsw'"
    )
    names = {r["name"].split(".")[-1].strip('"') for r in hnsw}
    return bool(_index_names(json.loads(plan)) & names)


def _pairs(rows: Sequence[asyncpg.Record]) -> list[tuple[str, float]]:
    return [(r["id"], float(r["distance"])) for r in rows]


def is_sentence(query: str) -> bool:
    """Whether ``query`` is one of ``search_queries``' sentence-like ones (the others are
    two or three bare code names)."""
    return query.startswith("why does ")


async def vector_recall(
    pool: asyncpg.Pool, sql: SqlReads, queries: Sequence[str], depth: int
) -> dict[str, Any]:
    """Recall@10 and recall@``depth`` of the server's nearest statement against the exact
    scan, with both timed (the exact scan once per query, ``depth`` deep)."""
    exact = exact_text(sql.nearest_text)
    params = sql.params
    probe = (*params, sql.embedding(queries[0]), depth)
    if await plan_uses_hnsw(pool, exact, probe):
        raise RuntimeError("the exact statement's plan reads an HNSW index")
    server_uses_hnsw = await plan_uses_hnsw(pool, sql.nearest_text, probe, sql.scan_settings(depth))
    resident_rows = await sql.index.warm(READER)  # as the server's after its first searches
    recalls: dict[int, list[float]] = {RECALL_K: [], depth: []}
    seconds: dict[str, list[float]] = {"server": [], "exact": []}
    scanned: list[bool] = []  # whether the server's exact scan answered, per query
    for query in queries:
        embedding = sql.embedding(query)
        started = time.perf_counter()
        served, was_scanned = await sql.nearest_rows(embedding, RECALL_K)
        seconds["server"].append(time.perf_counter() - started)
        scanned.append(was_scanned)
        deep, _ = await sql.nearest_rows(embedding, depth)
        started = time.perf_counter()
        truth = await pool.fetch(exact, *params, embedding, depth)
        seconds["exact"].append(time.perf_counter() - started)
        recalls[RECALL_K].append(recall_at(_pairs(served), _pairs(truth), RECALL_K))
        recalls[depth].append(recall_at(_pairs(deep), _pairs(truth), depth))
    top = recalls[RECALL_K]
    sentence = [is_sentence(query) for query in queries]
    return {
        "queries": len(queries),
        "server_plan_uses_hnsw": server_uses_hnsw,
        "resident_rows": resident_rows,
        f"recall_at_{RECALL_K}": summary(top),
        f"recall_at_{RECALL_K}_by_kind": {
            "sentences": summary([r for r, s in zip(top, sentence, strict=True) if s]),
            "names": summary([r for r, s in zip(top, sentence, strict=True) if not s]),
        },
        "server_exact_share": {
            "sentences": _share([x for x, s in zip(scanned, sentence, strict=True) if s]),
            "names": _share([x for x, s in zip(scanned, sentence, strict=True) if not s]),
        },
        "hybrid_depth": depth,
        "recall_at_depth": summary(recalls[depth]),
        "latency": {name: asdict(Latency.of(values)) for name, values in seconds.items()},
    }


async def keyword_agreement(
    pool: asyncpg.Pool, sql: SqlReads, queries: Sequence[str]
) -> dict[str, Any]:
    """KEYWORD as served against the exhaustive BM25 answer, ``KEYWORD_DEPTH`` deep."""

    async def served(query: str) -> tuple[list[str], bool, bool]:
        rows, fell_back = await sql.keyword_rows(query, KEYWORD_DEPTH)
        cut = bool(rows[0]["cut"]) if rows and not fell_back else False
        return [r["id"] for r in rows], cut, fell_back

    async def exhaustive(query: str) -> list[str]:
        return [r["id"] for r in await sql.exhaustive_rows(query, KEYWORD_DEPTH)]

    run = await interleaved({"topk": served, "exhaustive": exhaustive}, queries, pool)
    answers = cast(list[tuple[list[str], bool, bool]], run.answers["topk"])
    truths = cast(list[list[str]], run.answers["exhaustive"])
    overlaps, identical, cut, fell_back = [], 0, 0, 0
    for (ids, was_cut, fell), truth in zip(answers, truths, strict=True):
        overlaps.append(overlap_at(ids, truth, KEYWORD_DEPTH))
        identical += ids == truth
        cut += was_cut
        fell_back += fell
    count = max(len(queries), 1)
    return {
        "queries": len(queries),
        "depth": KEYWORD_DEPTH,
        f"overlap_at_{KEYWORD_DEPTH}": summary(overlaps),
        "identical_share": identical / count,
        "cut_share": cut / count,
        "fell_back_share": fell_back / count,
        "latency": {name: asdict(value) for name, value in run.latency.items()},
    }


async def search_quality(settings: Settings, spec: Spec, count: int) -> dict[str, Any]:
    """Vector recall and keyword agreement on the first ``count`` measured query texts."""
    queries = search_queries(spec, count, salt=1)  # the texts the latency pass measures
    pool = await create_pool(settings)
    try:
        sql = SqlReads(pool, settings, READER)
        depth = CandidateDepth().for_limit(SEARCH_LIMIT)
        started = time.perf_counter()
        vector = await vector_recall(pool, sql, queries, depth)
        keyword = await keyword_agreement(pool, sql, queries)
        # The sentence-like half alone (the names-only half matches far fewer chunks).
        sentences = [q for q in queries if is_sentence(q)]
        keyword_sentences = await keyword_agreement(pool, sql, sentences)
    finally:
        await pool.close()
    print(f"  recall and keyword agreement: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return {
        "exact_below": settings.search_exact_below,
        "exact_max_rows": settings.search_exact_max_rows,
        "resident_rows": settings.search_resident_rows,
        "vector_recall": vector,
        "keyword_agreement": keyword,
        "keyword_sentences": keyword_sentences,
    }
