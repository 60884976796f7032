"""Reciprocal rank fusion (RRF): one ranking from several, using ranks only.

An item at 1-based rank ``r`` in list ``i`` earns ``w_i / (k + r)``; its fused score is the
sum over the lists it appears in, divided by ``sum(w_i) / (k + 1)`` so that an item ranked
first everywhere scores 1.0 and every score lies in (0, 1] whatever ``k`` and the weights.

Why ranks and not scores: cosine similarities and full-text rank values live on unrelated
scales (a similarity of 0.4 and a rank score of 0.4 mean nothing alike), and their spread
changes from query to query; ranks need no calibration (Cormack, Clarke and Büttcher,
"Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods",
SIGIR 2009).

HYBRID uses it with ``FusionMethod.RRF`` (the ``hybrid_rrf`` preset); since KEYWORD scores
with BM25 in 0..1, the default is score fusion (``kenning.domain.retrieval.fusion``), which
scored nDCG@10 0.732 against RRF's 0.713 on SciFact. The figures below were measured when
KEYWORD was still ranked by ts_rank; with BM25, RRF at ``k`` = 60 and equal weights scored
0.713 (KEYWORD alone 0.675, VECTOR 0.664).

Defaults, measured on BEIR SciFact's 300 test queries by ``bench/relevance.py`` and
``bench/fusion_sweep.py``:

- ``k = 60``, the constant of Cormack et al., who found it robust across collections. A
  small ``k`` lets the top ranks of each list dominate; a large one flattens the curve so
  agreement between lists counts for more than position within one. On SciFact, at equal
  weights, ``k`` = 10-40 scored 0.001-0.010 nDCG@10 above ``k`` = 60 at every candidate
  depth (at most 2.4 standard errors of the paired per-query difference) and ``k`` =
  100-200 scored 0.001-0.012 below it: a mild preference for top ranks on one collection
  where most claims have a single relevant abstract, not enough to leave the published
  constant.
- Equal weights (1.0 and 1.0). Vector-heavier fusion (1.5:1, 2:1) ranged from -0.009 to
  +0.017 against the defaults (at most 1.9 standard errors, and the best of 48 tries, so
  flattered by the choice); keyword-heavier fusion (1:1.5, 1:2) lost 0.011-0.038. Equal
  weights are not a measured loss and assume nothing about a deployment's content.
  ``KENNING_SEARCH_RRF_K``, ``KENNING_SEARCH_VECTOR_WEIGHT`` and
  ``KENNING_SEARCH_KEYWORD_WEIGHT`` change the defaults. Fused with them, HYBRID scored
  nDCG@10 0.696 against 0.664 for VECTOR alone and 0.587 for KEYWORD alone.

Example::

    fuse([["a", "b"], ["b", "c"]], [1.0, 1.0])[0].key == "b"
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

DEFAULT_K: Final = 60

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Fused(Generic[K]):
    """One fused item: its normalized score and its 1-based rank in each input list."""

    key: K
    score: float
    ranks: tuple[int | None, ...]


def fuse(
    rankings: Sequence[Sequence[K]], weights: Sequence[float], *, k: int = DEFAULT_K
) -> list[Fused[K]]:
    """Fuse ranked lists (best first) into one, best first.

    Ties are broken by the best rank the item reached in any list, then by first appearance,
    so the order is deterministic. Items that only appear in lists of weight 0 are dropped.
    A key repeated within one list keeps its first (best) rank.
    """
    check_weights(len(rankings), weights)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ranks: dict[K, list[int | None]] = {}
    for list_index, ranking in enumerate(rankings):
        for position, key in enumerate(ranking, start=1):
            slots = ranks.setdefault(key, [None] * len(rankings))
            if slots[list_index] is None:
                slots[list_index] = position
    best_possible = sum(weights) / (k + 1)
    fused = []
    for key, slots in ranks.items():
        raw = sum(w / (k + r) for w, r in zip(weights, slots, strict=True) if r is not None)
        if raw > 0:
            fused.append(Fused(key, raw / best_possible, tuple(slots)))
    order = {key: i for i, key in enumerate(ranks)}
    fused.sort(key=lambda f: (-f.score, min(r for r in f.ranks if r is not None), order[f.key]))
    return fused


def check_weights(lists: int, weights: Sequence[float]) -> None:
    """Raise ``ValueError`` unless there is one non-negative weight per list, not all zero."""
    if lists != len(weights):
        raise ValueError(f"{lists} rankings but {len(weights)} weights")
    if any(w < 0 for w in weights) or not any(w > 0 for w in weights):
        raise ValueError("weights must be non-negative and not all zero")
