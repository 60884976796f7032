"""Scoring one search mode of the relevance benchmark: every SciFact test claim searched
through GraphQL, chunks mapped to documents by source URN (each document ranked by its best
chunk), nDCG@10 and recall@100 with binary relevance, and the table beside the published
reference points."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from bench._timing import percentile
from bench.ir_metrics import first_per_source, mean, ndcg_at, recall_at
from bench.scifact import Query

REFERENCES = {"BM25 (BEIR)": 0.665, "all-MiniLM-L6-v2 dense (BEIR/MTEB)": 0.64}
SEARCH = """
query($q: String!, $mode: SearchMode!, $limit: Int!) {
  search(query: $q, mode: $mode, limit: $limit, scope: {clientId: "scifact"}) {
    __typename
    ... on SearchSuccess { hits { sourceUrn } }
    ... on ValidationError { code message field }
    ... on ScopeError { code message }
  }
}"""


async def graphql(client: httpx.AsyncClient, query: str, **variables: object) -> Any:
    """One operation over HTTP; GraphQL errors are fatal here."""
    response = await client.post("/graphql", json={"query": query, "variables": variables})
    response.raise_for_status()
    body = response.json()
    if body.get("errors"):
        raise RuntimeError(f"GraphQL errors: {body['errors']}")
    return body["data"]


@dataclass(frozen=True, slots=True)
class ModeResult:
    """The figures of one search mode over the test queries."""

    mode: str
    ndcg_at_10: float
    recall_at_100: float
    queries: int
    docs_per_query_min: int
    wall_s: float
    latency_p50_ms: float
    latency_p95_ms: float


async def evaluate(
    client: httpx.AsyncClient,
    mode: str,
    queries: Sequence[Query],
    qrels: dict[str, set[str]],
    chunks: int,
) -> ModeResult:
    """Search every query in ``mode`` (one at a time, so latencies are not queueing)."""
    ndcgs, recalls, latencies, depths = [], [], [], []
    started = time.perf_counter()
    for query in queries:
        sent = time.perf_counter()
        result = (await graphql(client, SEARCH, q=query.text, mode=mode, limit=chunks))["search"]
        latencies.append((time.perf_counter() - sent) * 1000)
        if result["__typename"] != "SearchSuccess":
            raise RuntimeError(f"query {query.id} failed in {mode}: {result}")
        ranked = first_per_source(hit["sourceUrn"] for hit in result["hits"])
        depths.append(len(ranked))
        ndcgs.append(ndcg_at(ranked, qrels[query.id], 10))
        recalls.append(recall_at(ranked, qrels[query.id], 100))
    return ModeResult(
        mode=mode,
        ndcg_at_10=round(mean(ndcgs), 4),
        recall_at_100=round(mean(recalls), 4),
        queries=len(queries),
        docs_per_query_min=min(depths),
        wall_s=round(time.perf_counter() - started, 1),
        latency_p50_ms=round(percentile(latencies, 50), 1),
        latency_p95_ms=round(percentile(latencies, 95), 1),
    )


def table(results: Sequence[ModeResult]) -> str:
    """The results beside the published reference points."""
    lines = [
        f"{'mode':<40} {'nDCG@10':>8} {'R@100':>7} {'wall s':>7} {'p50 ms':>7} {'p95 ms':>7}",
    ]
    for r in results:
        lines.append(
            f"{'Kenning ' + r.mode:<40} {r.ndcg_at_10:>8.3f} {r.recall_at_100:>7.3f} "
            f"{r.wall_s:>7.1f} {r.latency_p50_ms:>7.1f} {r.latency_p95_ms:>7.1f}"
        )
    for name, value in REFERENCES.items():
        lines.append(f"{'reference ' + name:<40} {value:>8.3f}")
    return "\n".join(lines)
