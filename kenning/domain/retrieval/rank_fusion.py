"""Reciprocal rank fusion (RRF): one ranking from several, using ranks only.

An item at 1-based rank ``r`` in list ``i`` earns ``w_i / (k + r)``; its fused score is the
sum over the lists it appears in, divided by ``sum(w_i) / (k + 1)`` so that an item ranked
first everywhere scores 1.0 and every score lies in (0, 1] whatever ``k`` and the weights.

Why ranks: they need no calibration between lists whose scores live on unrelated scales or
spread differently from query to query (Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion
outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009). HYBRID fuses by rank
only with ``FusionMethod.RRF`` (``KENNING_SEARCH_FUSION=rrf``, the ``hybrid_rrf`` preset): its
two lists both score in 0..1, so by default it fuses their scores
(``kenning.domain.retrieval.fusion``).

``k`` is 60 (``DEFAULT_K``, ``KENNING_SEARCH_RRF_K``), the constant Cormack et al. found robust
across collections; the two lists weigh 1.0 each (``KENNING_SEARCH_VECTOR_WEIGHT``,
``KENNING_SEARCH_KEYWORD_WEIGHT``), which assumes nothing about a deployment's content. What
other values scored on SciFact is on the documentation's Benchmarks page.

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
