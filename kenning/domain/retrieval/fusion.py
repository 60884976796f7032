"""Score fusion: one ranking from several scored lists, as a convex combination of scores.

Each list holds ``(key, score)`` pairs best first, scores in 0..1 with 1.0 the best an index
can give (cosine similarity; BM25 over the query's ceiling). An item's fused score is
``sum(w_i * s_i) / sum(w_i)``, where ``s_i`` is its score in list ``i`` and 0 where the list
does not hold it, so it too lies in 0..1 and 1.0 means a perfect score in every list.

With ``normalize`` each list is first min-max scaled over its own candidates (its best
becomes 1.0, its last 0.0), which spreads every query's scores over the whole range but
makes the fused score a relative one: 1.0 then means best of these candidates everywhere,
not best possible.

Why scores, now that both are on 0..1: BM25 over the query's ceiling and cosine similarity
both say how much of the query a chunk holds, and their size carries what ranks throw away
(a clear winner in one list against a near tie in the other). Measured on BEIR SciFact's
300 test queries (``bench/fusion_sweep.py``, lists fetched through GraphQL), against RRF at
``k`` = 60 and equal weights, the default before, with the paired per-query difference in
nDCG@10 and its standard error:

- equal weights, raw scores: 0.732 against 0.713 at 900 candidates per list (the depth of
  ``bench.relevance``'s 300-hit searches), +0.019 ± 0.008 (2.5 SE); 0.721 against 0.713 at
  50 candidates (a 10-hit search), +0.009 ± 0.008 (1.1 SE). Score fusion gains more from
  depth than RRF, because a chunk missing from a list counts 0 there.
- Vector shares of 0.3-0.7 scored 0.711-0.732; min-max scaling 0.708-0.724; RRF at ``k``
  = 20 0.717-0.719. Equal weights were the best of these 12 settings at 900 candidates, so
  the figure is somewhat flattered by the choice, but they are also what assumes nothing
  about a deployment's content.

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
