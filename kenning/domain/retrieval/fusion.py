"""Score fusion: one ranking from several scored lists, as a convex combination of scores.

Each list holds ``(key, score)`` pairs best first, scores in 0..1 with 1.0 the best an index
can give (cosine similarity; BM25 over the query's ceiling). An item's fused score is
``sum(w_i * s_i) / sum(w_i)``, where ``s_i`` is its score in list ``i`` and 0 where the list
does not hold it, so it too lies in 0..1 and 1.0 means a perfect score in every list.

With ``normalize`` each list is first min-max scaled over its own candidates (its best
becomes 1.0, its last 0.0), which spreads every query's scores over the whole range but
makes the fused score a relative one: 1.0 then means best of these candidates everywhere,
not best possible.

Why scores: BM25 over the query's ceiling and cosine similarity both say how much of the
query a chunk holds, and their size carries what ranks throw away (a clear winner in one list
against a near tie in the other). HYBRID fuses this way by default (``FusionMethod.SCORES``),
raw scores at equal weights; it ranked SciFact better than reciprocal-rank fusion did (the
figures, and the weights and scalings tried, are on the documentation's Benchmarks page).

Example::

    fuse_scores([[("a", 0.9), ("b", 0.5)], [("b", 0.8)]], [1.0, 1.0])[0].key == "b"
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from kenning.domain.retrieval.rank_fusion import Fused, check_weights

K = TypeVar("K", bound=Hashable)


def fuse_scores(
    scored: Sequence[Sequence[tuple[K, float]]],
    weights: Sequence[float],
    *,
    normalize: bool = False,
) -> list[Fused[K]]:
    """Fuse scored lists (best first) into one, best first.

    Ties are broken by the best rank the item reached in any list, then by first appearance.
    Items that only appear in lists of weight 0 are dropped; a key repeated within one list
    keeps its first (best) entry.
    """
    check_weights(len(scored), weights)
    lists = [_scaled(items) if normalize else list(items) for items in scored]
    slots: dict[K, list[tuple[int, float] | None]] = {}
    for list_index, items in enumerate(lists):
        for position, (key, score) in enumerate(items, start=1):
            entry = slots.setdefault(key, [None] * len(lists))
            if entry[list_index] is None:
                entry[list_index] = (position, min(max(score, 0.0), 1.0))
    total = sum(weights)
    fused = []
    for key, entry in slots.items():
        if not any(w > 0 for w, e in zip(weights, entry, strict=True) if e is not None):
            continue
        combined = sum(w * e[1] for w, e in zip(weights, entry, strict=True) if e is not None)
        ranks = tuple(e[0] if e is not None else None for e in entry)
        fused.append(Fused(key, combined / total, ranks))
    order = {key: i for i, key in enumerate(slots)}
    fused.sort(key=lambda f: (-f.score, min(r for r in f.ranks if r is not None), order[f.key]))
    return fused


def _scaled(items: Sequence[tuple[K, float]]) -> list[tuple[K, float]]:
    if not items:
        return []
    scores = [score for _, score in items]
    low, high = min(scores), max(scores)
    if high <= low:
        return [(key, 1.0) for key, _ in items]
    return [(key, (score - low) / (high - low)) for key, score in items]
