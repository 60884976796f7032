"""Retrieval metrics with binary relevance, as BEIR reports them (pytrec_eval definitions).

Example: ``ndcg_at([\"a\", \"b\"], {\"b\"}, 10)`` → ``1 / log2(3)`` ≈ 0.631.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """nDCG@k: DCG of the first ``k`` ids over the DCG of an ideal ranking."""
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Recall@k: the share of relevant ids among the first ``k``."""
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def first_per_source(ranked_sources: Iterable[str]) -> list[str]:
    """Sources in order of their best-ranked chunk, each once.

    Example: ``first_per_source(["d1", "d2", "d1", "d3"])`` → ``["d1", "d2", "d3"]``.
    """
    return list(dict.fromkeys(ranked_sources))


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; 0.0 for no values."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0
