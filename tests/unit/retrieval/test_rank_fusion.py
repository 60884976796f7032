"""Reciprocal rank fusion: the order a reader gets from two rankings."""

from __future__ import annotations

import pytest

from kenning.domain.retrieval.rank_fusion import DEFAULT_K, Fused, fuse


def keys(fused: list[Fused[str]]) -> list[str]:
    return [f.key for f in fused]


def test_agreement_between_lists_beats_a_single_top_rank() -> None:
    fused = fuse([["a", "b", "c"], ["b", "d"]], [1.0, 1.0])
    assert keys(fused) == ["b", "a", "d", "c"]
    assert fused[0].ranks == (2, 1)
    assert fused[1].ranks == (1, None)


def test_scores_are_normalized_so_first_everywhere_is_one() -> None:
    fused = fuse([["a", "b"], ["a", "c"]], [1.0, 3.0])
    assert fused[0].key == "a"
    assert fused[0].score == pytest.approx(1.0)
    assert all(0 < f.score <= 1 for f in fused)


def test_score_is_the_weighted_reciprocal_rank_sum() -> None:
    [only] = fuse([["a"], []], [1.0, 1.0], k=60)
    # (1 / 61) / (2 / 61): first in one of two equally weighted lists
    assert only.score == pytest.approx(0.5)
    [deeper] = [f for f in fuse([["x", "y", "z"], ["z"]], [2.0, 1.0], k=10) if f.key == "z"]
    assert deeper.score == pytest.approx((2 / 13 + 1 / 11) / (3 / 11))


def test_a_heavier_list_wins_disagreements() -> None:
    rankings = [["v1", "v2"], ["k1", "k2"]]
    assert keys(fuse(rankings, [1.0, 2.0])) == ["k1", "k2", "v1", "v2"]
    assert keys(fuse(rankings, [2.0, 1.0])) == ["v1", "v2", "k1", "k2"]
    assert keys(fuse(rankings, [1.0, 1.0])) == ["v1", "k1", "v2", "k2"]


def test_weight_zero_ignores_a_list_entirely() -> None:
    fused = fuse([["a", "b"], ["c", "b", "a"]], [1.0, 0.0])
    assert keys(fused) == ["a", "b"]
    assert fused[0].ranks == (1, 3)  # the rank is still reported


def test_larger_k_lets_agreement_outweigh_position() -> None:
    rankings = [["x", "p", "q", "y"], ["r", "s", "t", "y"]]
    small = keys(fuse(rankings, [1.0, 1.0], k=1))
    large = keys(fuse(rankings, [1.0, 1.0], k=DEFAULT_K))
    assert small.index("x") < small.index("y")
    assert large.index("y") < large.index("x")


def test_ties_break_by_best_rank_then_first_appearance() -> None:
    fused = fuse([["a", "b"], ["c", "d"]], [1.0, 1.0])
    assert keys(fused) == ["a", "c", "b", "d"]
    assert fused[0].score == fused[1].score


def test_a_repeated_key_keeps_its_best_rank() -> None:
    [item] = fuse([["a", "a"]], [1.0])
    assert item.ranks == (1,)
    assert item.score == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("rankings", "weights", "k"),
    [
        ([["a"]], [1.0, 1.0], 60),
        ([["a"], ["b"]], [1.0, -1.0], 60),
        ([["a"], ["b"]], [0.0, 0.0], 60),
        ([["a"]], [1.0], 0),
    ],
)
def test_invalid_arguments_are_refused(
    rankings: list[list[str]], weights: list[float], k: int
) -> None:
    with pytest.raises(ValueError):
        fuse(rankings, weights, k=k)
