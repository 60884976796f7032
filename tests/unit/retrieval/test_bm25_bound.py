"""The argument behind BM25 top-k's rounded bound (``bm25_sql.BOUND_UNITS``), run on random
postings: each candidate's bound is its term scores rounded to whole units of 2^-20 and
added; such sums are exact in any order, each is off its true sum by at most half a unit per
term, so every candidate within the lexeme count of the rescoring depth's bound is rescored,
and the exact best ``depth`` are always among them."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.storage.retrieval.bm25_sql import BOUND_UNITS

# A BM25 term score: idf (ln(1 + N/df), at most ~21 for 10^9 chunks) times the saturation
# (tf * (k1 + 1) / (tf + k1 * norm), under k1 + 1 = 2.2).
TERM = st.floats(min_value=0.0, max_value=50.0, allow_nan=False, allow_subnormal=False)
# Scores a few units apart with fractions near a half: where rounding moves one chunk's
# bound past another's, the case the margin is for.
NEAR_HALF = st.builds(
    lambda units, fraction: (units + fraction) / BOUND_UNITS,
    st.integers(min_value=0, max_value=1),
    st.floats(min_value=0.3, max_value=0.7),
)


@st.composite
def postings(draw: st.DrawFn) -> tuple[int, list[dict[int, float]]]:
    """A query of ``lexemes`` terms, and per chunk the score of each term it holds."""
    lexemes = draw(st.integers(min_value=1, max_value=8))
    chunks = draw(st.integers(min_value=1, max_value=60))
    # Near-ties are what rounding could get wrong: reuse a few scores, nudged by an ulp.
    pool = draw(st.lists(st.one_of(NEAR_HALF, TERM), min_size=1, max_size=6))
    rows = []
    for _ in range(chunks):
        held = draw(st.sets(st.integers(0, lexemes - 1), min_size=1))
        rows.append(
            {
                term: math.nextafter(draw(st.sampled_from(pool)), math.inf)
                if draw(st.booleans())
                else draw(st.sampled_from(pool))
                for term in sorted(held)
            }
        )
    return lexemes, rows


def bound(scores: dict[int, float], order: list[int]) -> float:
    """As the statement computes it: ``sum(round(score * units))`` in float8, any order."""
    total = 0.0
    for term in order:
        total += float(round(scores[term] * BOUND_UNITS))
    return total


def exact(scores: dict[int, float]) -> float:
    """As the rescoring computes it: the terms added in lexeme order."""
    total = 0.0
    for term in sorted(scores):
        total += scores[term]
    return total


@settings(max_examples=200, deadline=None)
@given(postings(), st.integers(min_value=1, max_value=20), st.randoms())
def test_the_exact_best_are_always_among_the_rescored(
    drawn: tuple[int, list[dict[int, float]]], depth: int, shuffle: random.Random
) -> None:
    lexemes, rows = drawn
    bounds = []
    for scores in rows:
        orders = [sorted(scores), sorted(scores, reverse=True)]
        orders.append(shuffle.sample(sorted(scores), len(scores)))
        seen = {bound(scores, order) for order in orders}
        assert len(seen) == 1, "a rounded sum depends on the order it is added in"
        bounds.append(seen.pop())
    # The statement's `edge`: the depth-th best bound less the lexeme count, or none.
    ranked = sorted(bounds, reverse=True)
    least = ranked[depth - 1] - lexemes if len(ranked) >= depth else -math.inf
    picked = {chunk for chunk, value in enumerate(bounds) if value >= least}
    best = sorted(range(len(rows)), key=lambda chunk: (-exact(rows[chunk]), chunk))[:depth]
    missed = [chunk for chunk in best if chunk not in picked]
    assert not missed, f"exact best chunks {missed} were not rescored"


@given(TERM)
def test_a_rounded_term_is_within_half_a_unit(score: float) -> None:
    assert abs(round(score * BOUND_UNITS) - score * BOUND_UNITS) <= 0.5
