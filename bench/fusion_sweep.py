"""Fusion sweep: HYBRID's nDCG@10 on SciFact under rank fusion and score fusion settings.

Run from the repository root, after ``bench.relevance`` has ingested the corpus::

    .venv/bin/python -m bench.fusion_sweep [--lists /tmp/scifact_lists.json]

Each test claim is searched once in VECTOR and once in KEYWORD (BM25) mode through GraphQL
over HTTP (1,000 chunks each, with their scores); ``--lists`` keeps those lists in a file and
reuses it on the next run. The two lists are then fused offline with Kenning's own functions
for every setting, at the top 50-1,000 candidates of each list (what ``CandidateDepth``
decides for a search):

- ``rrf``: reciprocal rank fusion (``rank_fusion.fuse``), ``k`` in 10-200, vector:keyword
  weights 2:1 to 1:2;
- ``convex``: the weighted mean of the two scores as the indexes give them (cosine
  similarity, BM25 over the query's ceiling), 0 where a list lacks the chunk
  (``fusion.fuse_scores``), vector weight 0.1-0.9;
- ``minmax``: the same after min-max scaling each list over its candidates.

Every setting's paired per-query difference against RRF at ``k`` = 60, 1:1 (the previous
default) at the same depth comes with its standard error, so a gain can be told from noise.
Results go to stdout and ``bench/results/fusion_sweep.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from bench._processes import ROOT
from bench._relevance_eval import graphql
from bench.ir_metrics import first_per_source, mean, ndcg_at, recall_at
from bench.relevance import bench_key, bench_settings, ensure_database, scifact_server
from bench.scifact import Query, load_qrels, load_test_queries
from kenning.domain.retrieval.fusion import fuse_scores
from kenning.domain.retrieval.rank_fusion import DEFAULT_K, Fused, fuse

RESULTS = ROOT / "bench" / "results" / "fusion_sweep.json"
DEPTH = 1000
CHUNKS = 300
KS = (10, 20, 40, 60, 100, 200)
WEIGHTS = ((1.0, 1.0), (1.5, 1.0), (2.0, 1.0), (1.0, 1.5), (1.0, 2.0))
VECTOR_SHARES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DEPTHS = (50, 100, 300, 1000)
LISTS = """
query($q: String!, $mode: SearchMode!, $limit: Int!) {
  search(query: $q, mode: $mode, limit: $limit, scope: {clientId: "scifact"}) {
    __typename ... on SearchSuccess { hits { chunk { id } sourceUrn score } }
  }
}"""

Ranking = list[tuple[str, str, float]]  # (chunk id, source URN, score), best first
Fuser = Callable[[Ranking, Ranking], list[Fused[str]]]


@dataclass(frozen=True, slots=True)
class Point:
    """One fusion setting and what it scored, against the previous default."""

    method: str
    depth: int
    k: int | None
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
            pair.append([(h["chunk"]["id"], h["sourceUrn"], h["score"]) for h in result["hits"]])
        lists[query.id] = (pair[0], pair[1])
    return lists


def rrf(k: int, weights: tuple[float, float]) -> Fuser:
    """Reciprocal rank fusion with ``k`` and vector:keyword ``weights``."""
    return lambda vector, keyword: fuse(
        [[c for c, _, _ in vector], [c for c, _, _ in keyword]], weights, k=k
    )


def convex(vector_share: float, *, normalize: bool) -> Fuser:
    """Score fusion giving the vector score ``vector_share`` of the weight."""
    weights = (vector_share, 1.0 - vector_share)
    return lambda vector, keyword: fuse_scores(
        [[(c, s) for c, _, s in vector], [(c, s) for c, _, s in keyword]],
        weights,
        normalize=normalize,
    )


def per_query(
    lists: dict[str, tuple[Ranking, Ranking]],
    qrels: dict[str, set[str]],
    depth: int,
    fuser: Fuser,
) -> dict[str, tuple[float, float]]:
    """nDCG@10 and recall@100 per query for one setting."""
    scores = {}
    for query_id, (vector, keyword) in lists.items():
        source = {c: urn for c, urn, _ in (*vector, *keyword)}
        fused = fuser(vector[:depth], keyword[:depth])[:CHUNKS]
        ranked = first_per_source(source[f.key] for f in fused)
        relevant = qrels[query_id]
        scores[query_id] = (ndcg_at(ranked, relevant, 10), recall_at(ranked, relevant, 100))
    return scores


def settings() -> list[tuple[str, int | None, tuple[float, float], Fuser]]:
    """Every setting tried: (method, k, vector:keyword weights, fuser)."""
    tried: list[tuple[str, int | None, tuple[float, float], Fuser]] = [
        ("rrf", k, w, rrf(k, w)) for k in KS for w in WEIGHTS
    ]
    for share in VECTOR_SHARES:
        weights = (share, round(1.0 - share, 2))
        tried.append(("convex", None, weights, convex(share, normalize=False)))
        tried.append(("minmax", None, weights, convex(share, normalize=True)))
    return tried


def sweep(lists: dict[str, tuple[Ranking, Ranking]], qrels: dict[str, set[str]]) -> list[Point]:
    """Every setting, each compared with the previous default at the same depth."""
    points = []
    for depth in DEPTHS:
        base = per_query(lists, qrels, depth, rrf(DEFAULT_K, (1.0, 1.0)))
        for method, k, weights, fuser in settings():
            scores = per_query(lists, qrels, depth, fuser)
            diffs = [scores[q][0] - base[q][0] for q in scores]
            point = Point(
                method=method,
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


async def fetched(queries: Sequence[Query]) -> dict[str, tuple[Ranking, Ranking]]:
    """The lists from a server on the benchmark database."""
    settings = bench_settings()
    async with bench_key(settings) as key, scifact_server(settings, key, 1) as server:
        return await rankings(server.client, queries)


def load_lists(path: Path | None, queries: Sequence[Query]) -> dict[str, tuple[Ranking, Ranking]]:
    """The lists from ``path`` when it exists, else fetched (and kept there when given)."""
    if path is not None and path.exists():
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {q: ([tuple(h) for h in v], [tuple(h) for h in kw]) for q, (v, kw) in raw.items()}
    ensure_database(bench_settings())
    lists = asyncio.run(fetched(queries))
    if path is not None:
        path.write_text(json.dumps(lists), encoding="utf-8")
    return lists


def report(points: Sequence[Point]) -> None:
    """The best settings of each method and the previous default, per depth."""
    header = ("method", "depth", "k", "wv", "wk", "nDCG@10", "R@100", "diff", "SE")
    widths = (7, 5, 4, 4, 4, 8, 7, 8, 7)
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)))
    shown = []
    for method in ("rrf", "convex", "minmax"):
        shown += sorted((p for p in points if p.method == method), key=lambda p: -p.ndcg_at_10)[:5]
    shown += [p for p in points if (p.method, p.k, p.vector_weight) == ("rrf", DEFAULT_K, 1.0)
              and p.keyword_weight == 1.0]  # fmt: skip
    for p in shown:
        print(
            f"{p.method:>7} {p.depth:>5} {p.k or '-':>4} {p.vector_weight:>4} "
            f"{p.keyword_weight:>4} {p.ndcg_at_10:>8.4f} {p.recall_at_100:>7.4f} "
            f"{p.ndcg_diff_vs_default:>+8.4f} {p.diff_standard_error:>7.4f}"
        )
    print(f"{len(points) // len(DEPTHS)} settings at each of {len(DEPTHS)} depths")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--lists", type=Path, help="keep the fetched lists here, reuse them")
    args = parser.parse_args(argv)
    qrels = load_qrels()
    lists = load_lists(args.lists, load_test_queries(qrels))
    points = sweep(lists, qrels)
    report(points)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps([asdict(p) for p in points], indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
