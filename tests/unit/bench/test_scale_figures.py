"""The scale benchmark's rows in the make-bench table and its ratios."""

from __future__ import annotations

from typing import Any

import pytest

from bench._all_figures import EXTRACTS
from bench._all_runs import RUNS
from bench._all_table import rows
from bench._scale_figures import contention, ratios
from bench.scale import _arguments


def _op(qps: float, share: float = 0.3) -> dict[str, Any]:
    return {"qps": qps, "postgres_cpu_share": share}


def _report(search2: float, neighbors2: float = 90.0) -> dict[str, Any]:
    return {
        "concurrency": 16,
        "serve": {
            "1": {"search": _op(100.0), "neighbors": _op(60.0)},
            "2": {"search": _op(search2, 0.45), "neighbors": _op(neighbors2)},
        },
        "drain": {"1": {"jobs_per_s": 50.0}, "2": {"jobs_per_s": 80.0}},
    }


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {r.figure: r.verdict for r in rows("scale", None, report, EXTRACTS["scale"])}


def test_searches_with_two_processes_meet_the_goal_at_1_6x_and_miss_below() -> None:
    label = "HYBRID search req/s, 2 server processes, 16 in flight"
    assert _verdicts(_report(170.0))[label] == "met"
    assert _verdicts(_report(150.0))[label] == "missed"


def test_every_figure_is_a_row() -> None:
    table = {r.figure: r for r in rows("scale", None, _report(170.0), EXTRACTS["scale"])}
    assert set(table) == {
        "HYBRID search req/s, 2 server processes, 16 in flight",
        "2-hop neighbors req/s, 2 server processes, 16 in flight",
        "PostgreSQL share of the CPU used, HYBRID search, 2 processes",
        "PostgreSQL share of the CPU used, 2-hop neighbors, 2 processes",
        "queue drain, 2 worker processes",
    }
    assert table["queue drain, 2 worker processes"].ratio == pytest.approx(1.6)
    assert table["PostgreSQL share of the CPU used, HYBRID search, 2 processes"].kenning == "45.0 %"


def test_ratios_are_the_largest_count_over_one() -> None:
    assert ratios(_report(170.0, 90.0)) == {"search": 1.7, "neighbors": 1.5, "drain": 1.6}


def test_a_run_with_one_count_has_no_ratio_and_no_rows() -> None:
    single = {"concurrency": 16, "serve": {"1": _report(1.0)["serve"]["1"]}, "drain": {}}
    assert ratios(single) == {}
    (row,) = rows("scale", None, single, EXTRACTS["scale"])
    assert row.verdict == "no results"
    assert "did not serve with 1 and with more" in row.figure


def test_make_bench_runs_it_and_bad_counts_are_refused() -> None:
    (run,) = [r for r in RUNS if r.name == "scale"]
    assert run.argv(quick=True)[:2] == ("-m", "bench.scale")
    assert _arguments(["--workers", "2,1,2"]).workers == [1, 2]
    with pytest.raises(SystemExit):
        _arguments(["--workers", "0,2"])


def test_other_work_on_the_machine_is_the_largest_other_cores_of_any_phase() -> None:
    report = _report(170.0)
    for count, other in (("1", 0.1), ("2", 0.9)):
        for run in report["serve"][count].values():
            run["cores_busy"] = {"server": 0.5, "postgres": 0.5, "client": 0.1, "other": other}
    assert contention(report) == 0.9


def test_a_busy_machine_is_a_missed_row() -> None:
    label = "other work on the machine during the reads, at most"
    assert _verdicts(_report(170.0) | {"other_cores_busy_max": 0.6})[label] == "missed"
    assert _verdicts(_report(170.0) | {"other_cores_busy_max": 0.05})[label] == "met"
