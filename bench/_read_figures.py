"""The read benchmark's rows in the ``make bench`` table.

``read`` reads the JSON ``bench.read`` writes (``bench/results/read.json``): search and 2-hop
neighbors p50 through GraphQL against the same raw SQL, then, when the run has them, recall
against the exact scan, KEYWORD top-k against exhaustive BM25, search with a 5 % filter
against none, ingest with the corpus stored and the HNSW build.
"""

from __future__ import annotations

from typing import Any

from bench._all_table import Figure, Goal


def read(data: dict[str, Any]) -> list[Figure]:
    """HYBRID search and 2-hop neighbors p50 through GraphQL against the same raw SQL."""
    ops = data["ops"]
    search, near = ops["search"]["latency"], ops["neighbors"]["latency"]
    size = _chunks(data.get("spec", {}).get("chunks", 100_000))
    found = [
        Figure(f"HYBRID search p50, {size} chunks", "ms", search["graphql"]["p50_ms"],
               search["sql"]["p50_ms"], "SQL"),
        Figure("2-hop neighbors p50", "ms", near["graphql"]["p50_ms"], near["sql"]["p50_ms"],
               "SQL", Goal("ratio", most=1.3, issue=5)),
    ]  # fmt: skip
    keyword = ops.get("keyword_search", {}).get("latency")
    if keyword:
        found.append(Figure(f"KEYWORD (BM25) search p50, {size} chunks", "ms",
                            keyword["graphql"]["p50_ms"], keyword["sql"]["p50_ms"], "SQL",
                            Goal("figure", most=15, issue=3)))  # fmt: skip
    if "cypher" in near:
        found.append(Figure("2-hop neighbors p50 as AGE Cypher", "ms", near["cypher"]["p50_ms"],
                            near["sql"]["p50_ms"], "SQL"))  # fmt: skip
    return found + _read_at_size(data)


def _chunks(count: int) -> str:
    """``10k``, ``100k``, ``1M``: the corpus size in a label."""
    return f"{count / 1e6:g}M" if count >= 1_000_000 else f"{count / 1e3:g}k"


def _read_at_size(data: dict[str, Any]) -> list[Figure]:
    """Recall against the exact scan, KEYWORD top-k against exhaustive, ingest with the
    corpus stored against an empty database, the HNSW build; each when the run has it."""
    found = []
    quality, writes = data.get("search_quality"), data.get("ingest_at_size")
    if quality:
        vector, keyword = quality["vector_recall"], quality["keyword_agreement"]
        depth, latency = keyword["depth"], keyword["latency"]
        found += [
            Figure("scoped vector recall@10 vs exact scan", "", vector["recall_at_10"]["mean"],
                   goal=Goal("figure", least=0.95)),
            *(Figure(f"scoped vector recall@10, {kind} only", "", value["mean"])
              for kind, value in vector.get("recall_at_10_by_kind", {}).items()),
            Figure(f"KEYWORD top-{depth} overlap with exhaustive BM25", "",
                   keyword[f"overlap_at_{depth}"]["mean"]),
            Figure("KEYWORD top-k statement p50", "ms", latency["topk"]["p50_ms"],
                   latency["exhaustive"]["p50_ms"], "exhaustive"),
        ]  # fmt: skip
        if "keyword_sentences" in quality:
            latency = quality["keyword_sentences"]["latency"]
            found.append(Figure("KEYWORD top-k statement p50, sentence queries", "ms",
                                latency["topk"]["p50_ms"], latency["exhaustive"]["p50_ms"],
                                "exhaustive", Goal("figure", most=30)))  # fmt: skip
    if writes:
        found.append(Figure("ingest docs/s with the corpus stored", "docs/s",
                            writes["corpus"]["docs_per_s"], writes["empty"]["docs_per_s"],
                            "empty database", Goal("ratio", least=0.8)))  # fmt: skip
    found += _filtered(data.get("filtered_search"))
    hnsw = data.get("data", {}).get("build", {}).get("hnsw_s")
    if hnsw is not None:
        found.append(Figure("HNSW index build", "s", hnsw))
    return found


def _filtered(filtered: dict[str, Any] | None) -> list[Figure]:
    """Search with a filter keeping 5 % of the reader's chunks against none, per mode, and
    the filtered recall@10 (issue 39's goals: 1.2x and 0.95)."""
    if not filtered:
        return []
    found = [
        Figure(
            f"{mode} search p50, 5 % filter",
            "ms",
            filtered[key]["filtered"]["p50_ms"],
            filtered[key]["unfiltered"]["p50_ms"],
            "no filter",
            Goal("ratio", most=1.2),
        )
        for mode, key in (("HYBRID", "hybrid"), ("VECTOR", "vector"), ("KEYWORD", "keyword"))
        if key in filtered
    ]
    recall = filtered["filtered_recall_at_10"]["mean"]
    found.append(
        Figure(
            "filtered vector recall@10 vs exact filtered",
            "",
            recall,
            goal=Goal("figure", least=0.95),
        )
    )
    return found
