"""Score fusion: the order and the 0..1 scores a reader gets from two scored lists."""

from __future__ import annotations

import pytest

from kenning.domain.retrieval.fusion import fuse_scores


def test_score_is_the_weighted_mean_with_zero_where_a_list_lacks_the_item() -> None:
    fused = fuse_scores([[("a", 0.8), ("b", 0.6)], [("b", 0.5)]], [3.0, 1.0])
    by_key = {f.key: f for f in fused}
    assert by_key["a"].score == pytest.approx(3 * 0.8 / 4)
    assert by_key["b"].score == pytest.approx((3 * 0.6 + 0.5) / 4)
    assert [f.key for f in fused] == ["a", "b"]
    assert by_key["a"].ranks == (1, None)
    assert by_key["b"].ranks == (2, 1)


def test_perfect_scores_everywhere_fuse_to_one_and_scores_stay_in_range() -> None:
    fused = fuse_scores([[("a", 1.0), ("b", 0.2)], [("a", 1.0), ("c", 0.9)]], [0.6, 0.4])
    assert fused[0].key == "a"
    assert fused[0].score == pytest.approx(1.0)
    assert all(0.0 <= f.score <= 1.0 for f in fused)


def test_out_of_range_index_scores_are_clamped() -> None:
    # A cosine similarity can be negative for opposed texts; fused scores still read 0..1.
    fused = fuse_scores([[("a", 1.2), ("b", -0.3)], []], [1.0, 1.0])
    assert [f.score for f in fused] == [pytest.approx(0.5), pytest.approx(0.0)]


def test_min_max_scaling_spreads_each_list_over_zero_to_one() -> None:
    vector = [("a", 0.62), ("b", 0.60), ("c", 0.58)]
    keyword = [("c", 0.9), ("a", 0.1)]
    raw = fuse_scores([vector, keyword], [0.5, 0.5])
    scaled = fuse_scores([vector, keyword], [0.5, 0.5], normalize=True)
    # Raw, the keyword list's wide spread decides; scaled, each list spans 0..1.
    assert [f.key for f in raw] == ["c", "a", "b"]
    by_key = {f.key: f.score for f in scaled}
    assert by_key["a"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert by_key["c"] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)
    assert by_key["b"] == pytest.approx(0.25)


def test_a_list_of_equal_scores_scales_to_one() -> None:
    [only] = fuse_scores([[("a", 0.3)], [("a", 0.3)]], [1.0, 1.0], normalize=True)
    assert only.score == pytest.approx(1.0)


def test_ties_break_by_best_rank_then_first_appearance() -> None:
    fused = fuse_scores([[("a", 0.5), ("b", 0.5)], [("c", 0.5)]], [1.0, 1.0])
    assert [f.key for f in fused] == ["a", "c", "b"]


def test_a_repeated_key_keeps_its_first_entry_and_zero_weight_lists_add_nothing() -> None:
    fused = fuse_scores([[("a", 0.9), ("a", 0.1)], [("z", 1.0)]], [1.0, 0.0])
    assert [f.key for f in fused] == ["a"]
    assert fused[0].score == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("lists", "weights"),
    [([[("a", 1.0)]], [1.0, 1.0]), ([[("a", 1.0)]], [-1.0]), ([[("a", 1.0)]], [0.0])],
)
def test_bad_weights_are_refused(
    lists: list[list[tuple[str, float]]], weights: list[float]
) -> None:
    with pytest.raises(ValueError, match=r"weights|rankings"):
        fuse_scores(lists, weights)
