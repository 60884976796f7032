"""The filtered-search row of ``bench.read``'s report."""

from __future__ import annotations

from bench._all_table import Goal
from bench._read_figures import read
from bench._read_filtered import filtered_lines


def _mode(unfiltered: float, filtered: float) -> dict[str, object]:
    return {
        "unfiltered": {"p50_ms": unfiltered},
        "filtered": {"p50_ms": filtered},
        "p50_ratio": filtered / unfiltered,
    }


def test_the_row_gives_each_modes_p50s_their_ratio_and_the_recall() -> None:
    measured = {
        "filter": {"entity_keys": 21, "share_of_visible": 0.0503},
        "hybrid": _mode(20.0, 22.0),
        "vector": _mode(8.0, 8.0),
        "keyword": _mode(6.0, 12.0),
        "filtered_recall_at_10": {"mean": 0.987, "min": 0.9, "count": 200},
    }
    [line] = filtered_lines(measured)
    assert "keeping 5.0% of the visible chunks" in line
    assert "HYBRID p50 20.00 -> 22.00 ms (1.10x)" in line
    assert "KEYWORD p50 6.00 -> 12.00 ms (2.00x)" in line
    assert "recall@10 vs exact mean 0.987, min 0.90" in line


def test_a_run_without_it_has_no_row() -> None:
    assert filtered_lines(None) == []


def test_make_bench_judges_the_ratio_and_the_recall() -> None:
    data = {
        "ops": {
            "search": {"latency": {"graphql": {"p50_ms": 9.0}, "sql": {"p50_ms": 8.0}}},
            "neighbors": {"latency": {"graphql": {"p50_ms": 5.0}, "sql": {"p50_ms": 4.0}}},
        },
        "filtered_search": {
            "vector": _mode(8.0, 8.8),
            "keyword": _mode(6.0, 12.0),
            "filtered_recall_at_10": {"mean": 1.0},
        },
    }
    rows = {f.label: f for f in read(data)}
    goal = Goal("ratio", most=1.2)
    assert rows["VECTOR search p50, 5 % filter"].goal == goal
    assert rows["KEYWORD search p50, 5 % filter"].goal == goal
    assert (goal.met(8.8, 1.1), goal.met(12.0, 2.0)) == (True, False)
    recall = rows["filtered vector recall@10 vs exact filtered"]
    assert (recall.kenning, recall.goal) == (1.0, Goal("figure", least=0.95))
