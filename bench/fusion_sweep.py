"""Fusion sweep: how HYBRID's nDCG@10 on SciFact moves with ``k``, weights and depth.

Run from the repository root, after ``bench.relevance`` has ingested the corpus::

    .venv/bin/python -m bench.fusion_sweep

Each test claim is searched once in VECTOR and once in KEYWORD mode through GraphQL over
HTTP (1,000 chunks each), then the two lists are fused offline with Kenning's own
``fuse`` for every setting: ``k`` in 10-200, vector:keyword weights 2:1 to 1:2, and the top
50-1,000 candidates of each list (what ``CandidateDepth`` decides for a search). The paired
per-query difference against the defaults (k = 60, 1:1) comes with its standard error, so
a gain can be told from noise. Results go to stdout and ``bench/results/fusion_sweep.json``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import httpx

from bench._processes import ROOT
from bench.ir_metrics import first_per_source, mean, ndcg_at, recall_at
from bench.relevance import (
    bench_key,
    bench_settings,
    ensure_database,
    graphql,
    scifact_server,
)
from bench.scifact import Query, load_qrels, load_test_queries
from kenning.domain.retrieval.rank_fusion import DEFAULT_K, fuse

RESULTS = ROOT / "bench" / "results" / "fusion_sweep.json"
DEPTH = 1000
CHUNKS = 300
KS = (10, 20, 40, 60, 100, 200)
WEIGHTS = ((1.0, 1.0), (1.5, 1.0), (2.0, 1.0), (1.0, 1.5), (1.0, 2.0))
DEPTHS = (50, 100, 300, 1000)
LISTS = """
query($q: String!, $mode: SearchMode!, $limit: Int!) {
  search(query: $q, mode: $mode, limit: $limit) {
    __typename ... on SearchSuccess { hits { chunk { id } sourceUrn } }
  }
}"""

Ranking = list[tuple[str, str]]  # (chunk id, source URN), best first


@dataclass(frozen=True, slots=True)
class Point:
    """One fusion setting and what it scored, against the defaults."""

    depth: int
    k: int
    vector_weight: float
    keyword_weight: float
    ndcg_at_10: float
    recall_at_100: float
    ndcg_diff_vs_default: float
    diff_standard_error: float


async def rankings(
    client: httpx.AsyncClient, queries: Sequence[Query]
) -> dict[str, tuple[Ranking, Ranking]]:
    """Each query's VECTOR and KEYWORD lists, ``DEPTH`` chunks deep."""
    lists: dict[str, tuple[Ranking, Ranking]] = {}
    for query in queries:
        pair = []
        for mode in ("VECTOR", "KEYWORD"):
            result = (await graphql(client, LISTS, q=query.text, mode=mode, limit=DEPTH))["search"]
            if result["__typename"] != "SearchSuccess":
                raise RuntimeError(f"query {query.id} failed in {mode}: {result}")
            pair.append([(h["chunk"]["id"], h["sourceUrn"]) for h in result["hits"]])
        lists[query.id] = (pair[0], pair[1])
    return lists


def per_query(
    lists: dict[str, tuple[Ranking, Ranking]],
    qrels: dict[str, set[str]],
    depth: int,
    k: int,
    weights: tuple[float, float],
) -> dict[str, tuple[float, float]]:
    """nDCG@10 and recall@100 per query for one setting."""
    scores = {}
    for query_id, (vector, keyword) in lists.items():
        source = dict(vector + keyword)
        fused = fuse(
            [[c for c, _ in vector[:depth]], [c for c, _ in keyword[:depth]]], weights, k=k
        )[:CHUNKS]
        ranked = first_per_source(source[f.key] for f in fused)
        relevant = qrels[query_id]
        scores[query_id] = (ndcg_at(ranked, relevant, 10), recall_at(ranked, relevant, 100))
    return scores


def sweep(lists: dict[str, tuple[Ranking, Ranking]], qrels: dict[str, set[str]]) -> list[Point]:
    """Every setting, each compared with the defaults at the same depth."""
    points = []
    for depth in DEPTHS:
        base = per_query(lists, qrels, depth, DEFAULT_K, (1.0, 1.0))
        for k, weights in itertools.product(KS, WEIGHTS):
            scores = per_query(lists, qrels, depth, k, weights)
            diffs = [scores[q][0] - base[q][0] for q in scores]
            point = Point(
                depth=depth,
                k=k,
                vector_weight=weights[0],
                keyword_weight=weights[1],
                ndcg_at_10=round(mean(s[0] for s in scores.values()), 4),
                recall_at_100=round(mean(s[1] for s in scores.values()), 4),
                ndcg_diff_vs_default=round(mean(diffs), 4),
                diff_standard_error=round(statistics.stdev(diffs) / math.sqrt(len(diffs)), 4),
            )
            points.append(point)
    return points


async def run() -> list[Point]:
    settings = bench_settings()
    qrels = load_qrels()
    queries = load_test_queries(qrels)
    async with bench_key(settings) as key, scifact_server(settings, key, 1) as server:
        lists = await rankings(server.client, queries)
    return sweep(lists, qrels)


def main() -> None:
    ensure_database(bench_settings())
    points = asyncio.run(run())
    best = sorted(points, key=lambda p: -p.ndcg_at_10)[:10]
    header = ("depth", "k", "wv", "wk", "nDCG@10", "R@100", "diff", "SE")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (5, 4, 4, 4, 8, 7, 8, 7), strict=True)))
    defaults = [p for p in points if (p.k, p.vector_weight, p.keyword_weight) == (60, 1, 1)]
    for p in [*best, *defaults]:
        print(
            f"{p.depth:>5} {p.k:>4} {p.vector_weight:>4} {p.keyword_weight:>4} "
            f"{p.ndcg_at_10:>8.4f} {p.recall_at_100:>7.4f} {p.ndcg_diff_vs_default:>+8.4f} "
            f"{p.diff_standard_error:>7.4f}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps([asdict(p) for p in points], indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
