"""``make bench``'s table built from benchmark results recorded on this machine (trimmed to the
fields the table reads): ratios, goals met and missed, failed and missing runs, --only."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bench import all as bench_all
from bench._all_figures import EXTRACTS, router_results
from bench._all_runs import RUNS, chosen
from bench._all_table import Goal, Row, render, rows, unmeasured

USER_CONTEXT: dict[str, Any] = {  # bench/results/user_context.json, 2026-11-25
    "items": 10000,
    "latency": {"sql": {"p50_ms": 1.983, "p95_ms": 6.507}, "graphql": {"p50_ms": 7.079}},
}
QUEUE: dict[str, Any] = {  # docs/benchmarks.md figures of bench.queue, in its JSON's shape
    "throughput": [{"workers": 1, "jobs_per_s": 33.0}, {"workers": 2, "jobs_per_s": 58.0}],
    "lane_isolation": {"bulk_jobs": 5000, "idle": {"p95_ms": 31.0}, "loaded": {"p95_ms": 93.0}},
    "fan_out": {"subscribers": 500, "p95_ms": 1070.0, "deliveries": 4990,
                "expected_deliveries": 5000},
}  # fmt: skip
RELEVANCE: dict[str, Any] = {
    "results": [
        {"mode": "KEYWORD", "ndcg_at_10": 0.587},
        {"mode": "VECTOR", "ndcg_at_10": 0.664},
        {"mode": "HYBRID", "ndcg_at_10": 0.696},
    ],
    "references_ndcg_at_10": {"BM25 (BEIR)": 0.665, "all-MiniLM-L6-v2 dense (BEIR/MTEB)": 0.64},
}
INGEST: dict[str, Any] = {
    "hash": {"kenning": {"docs_per_s": 48.0, "chunks_per_s": 300.0},
             "baseline_per_document": {"docs_per_s": 100.0},
             "reingest": {"sequential_ms_mean": 10.4}},
    "local": {"kenning": {"docs_per_s": 2.0, "chunks_per_s": 4.0},
              "reingest": {"sequential_ms_mean": 4.2},
              "model_alone": {"chunks": 900, "chunks_per_s_one_call_per_document": 12.0,
                              "chunks_per_s_batches_of_32": 19.6}},
}  # fmt: skip
ROUTER_STDOUT = """Overhead: 400 sequential P0 requests per path and endpoint (ms)
  floor: one loopback HTTP round trip (GET /api/version, direct) p50 0.61 p95 0.90
  /api/embed     direct p50   1.50 p95   2.10 | router p50   2.66 p95   3.40 | added p50  1.16 p95  1.30 (paired median  1.16)
  /api/generate  direct p50   1.40 p95   2.00 | router p50   2.52 p95   3.10 | added p50  1.12 p95  1.10 (paired median  1.12)
Preemption, load time 0 s, GPU saturated with 8 P3 embeddings: P0 time to first byte 15 ms, 16 ms, 17 ms (median 16 ms); all P3 re-run on CPU
"""  # noqa: E501


def _by_figure(table: list[Row]) -> dict[str, Row]:
    return {r.figure: r for r in table}


def test_ratio_is_kenning_over_baseline_and_a_figure_goal_judges_kenning() -> None:
    (row,) = rows("user_context", None, USER_CONTEXT, EXTRACTS["user_context"])
    assert row.ratio == pytest.approx(7.079 / 1.983)
    assert (row.kenning, row.baseline) == ("7.079 ms", "1.983 ms SQL")
    assert (row.goal, row.verdict) == ("<= 30", "met")
    slow = {**USER_CONTEXT, "latency": {**USER_CONTEXT["latency"], "graphql": {"p50_ms": 31.0}}}
    assert rows("user_context", None, slow, EXTRACTS["user_context"])[0].verdict == "missed"


def test_queue_rows_carry_issue_15_goals_and_a_lost_delivery_misses() -> None:
    table = _by_figure(rows("queue", None, QUEUE, EXTRACTS["queue"]))
    lanes = table["priority lane p95, 5,000 bulk queued"]
    assert lanes.ratio == pytest.approx(3.0)
    assert (lanes.goal, lanes.verdict, lanes.issue_goal) == ("<= 1.5x (#6)", "missed", 6)
    assert table["queue throughput, 2 workers"].verdict == "-"  # no goal
    assert table["queueStatus change-to-delivery p95, 500 subscribers"].verdict == "missed"
    deliveries = table["queueStatus deliveries, 500 subscribers"]
    assert (deliveries.kenning, deliveries.verdict) == ("4,990", "missed")
    every = {**QUEUE["fan_out"], "deliveries": 5000, "p95_ms": 240.0}
    fixed = _by_figure(rows("queue", None, {"fan_out": every}, EXTRACTS["queue_fan_out"]))
    assert [r.verdict for r in fixed.values()] == ["met", "met"]


def test_relevance_against_bm25_and_dense_references() -> None:
    table = _by_figure(rows("relevance", None, RELEVANCE, EXTRACTS["relevance"]))
    keyword, vector = table["SciFact nDCG@10 KEYWORD"], table["SciFact nDCG@10 VECTOR"]
    assert (keyword.goal, keyword.verdict) == (">= 0.66 (#3)", "missed")
    assert keyword.ratio == pytest.approx(0.587 / 0.665)
    assert vector.baseline == "0.640 MiniLM dense" and vector.verdict == "-"
    assert table["SciFact nDCG@10 HYBRID"].verdict == "missed"  # 0.696 < 0.72


def test_ingest_rows_per_embedder_with_model_throughput_for_the_local_one() -> None:
    table = _by_figure(rows("ingest", None, INGEST, EXTRACTS["ingest"]))
    assert table["ingest docs/s, hash embedder"].verdict == "missed"  # 0.48x < 0.5x
    assert table["unchanged re-ingest, hash embedder"].verdict == "missed"
    assert table["unchanged re-ingest, local embedder"].verdict == "met"
    model = table["embedding through ingest, local model"]
    assert model.ratio == pytest.approx(4.0 / 19.6) and model.issue_goal == 2
    assert "ingest docs/s, local embedder" not in table  # no raw baseline in the local run


def test_router_figures_come_from_its_printed_lines() -> None:
    data = router_results(ROUTER_STDOUT)
    assert data is not None
    table = _by_figure(rows("router", None, data, EXTRACTS["router"]))
    assert table["router /api/embed p50"].ratio == pytest.approx(2.66 / 1.50)
    assert table["P0 first byte under preemption, model load 0s"].kenning == "16.0 ms"
    assert router_results("Traceback (most recent call last):\n") is None


def test_a_failed_missing_or_unreadable_run_is_one_row_saying_so() -> None:
    extract = EXTRACTS["read"]
    assert rows("read", "exit 2", {"ops": {}}, extract)[0].verdict == "FAILED (exit 2)"
    assert rows("read", None, None, extract)[0].verdict == "no results"
    (broken,) = rows("read", None, {"spec": {}}, extract)
    assert broken.verdict == "no results" and "ops" in broken.figure


def test_render_has_every_row_and_the_issue_goals_nobody_measured() -> None:
    table = rows("queue", None, QUEUE, EXTRACTS["queue"]) + rows(
        "read", "exit 1", None, EXTRACTS["read"]
    )
    text = render(table)
    lines = text.splitlines()
    assert lines[0].split() == [
        "benchmark",
        "figure",
        "goal",
        "kenning",
        "baseline",
        "ratio",
        "verdict",
    ]
    assert "3.00x" in text and "FAILED (exit 1)" in text
    assert [line[:2] for line in unmeasured(table)] == ["#1", "#2", "#3", "#5"]
    assert "#5 graph reads" in text and "#4 fan-out" not in text.split("measured:")[1]


def test_goal_bounds_both_ways() -> None:
    assert Goal("ratio", least=0.8).met(1.0, 0.79) is False
    assert Goal("ratio", least=0.8).met(1.0, None) is None
    assert Goal("figure", most=0).met(0, None) is True
    assert Goal("figure", most=250, issue=4).text() == "<= 250 (#4)"


def test_only_picks_runs_in_order_and_names_an_unknown_one() -> None:
    assert [r.name for r in chosen("queue, read")] == ["read", "queue"]
    assert chosen(None) == RUNS
    with pytest.raises(ValueError, match="unknown benchmark nope"):
        chosen("read,nope")
    assert {r.extract for r in RUNS} <= set(EXTRACTS)


def test_a_results_file_older_than_the_run_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_all, "RESULTS", tmp_path)
    run = next(r for r in RUNS if r.name == "user_context")
    (tmp_path / "user_context.json").write_text('{"items": 1}')
    os.utime(tmp_path / "user_context.json", (1_000, 1_000))
    assert bench_all._fresh_results(run, "", started=2_000) is None
    fresh: Any = bench_all._fresh_results(run, "", started=500)
    assert fresh == {"items": 1}


def test_a_run_reports_its_exit_code_and_a_timeout_stops_it() -> None:
    failed = bench_all._execute([sys.executable, "-c", "print('half'); raise SystemExit(3)"], 30)
    assert failed == ("exit 3", "half\n")
    started = time.monotonic()
    hung = bench_all._execute([sys.executable, "-c", "import time; time.sleep(60)"], 0.5)
    assert hung[0] == "timeout after 0.5 s" and time.monotonic() - started < 30


def test_loop_health_names_the_document_size_it_ran_with() -> None:
    quick = {"documents_per_round": 3, "document_chars": 500_000, "goal_p99_ms": 50.0,
             "idle": {"p99_ms": 3.15}, "during_ingests": {"p99_ms": 51.0}}  # fmt: skip
    (row,) = rows("loop_health", None, quick, EXTRACTS["loop_health"])
    assert row.figure == "/healthz p99 during 3 concurrent 0.5 MB ingests"
    assert (row.goal, row.verdict) == ("<= 50", "missed")


def test_queue_snapshot_rows_per_reader_against_the_full_count() -> None:
    recorded = {"history": 1_000_000, "readers": {  # bench/results/queue_snapshot.json
        "project": {"snapshot": {"p50_ms": 2.252}, "old_snapshot": {"p50_ms": 44.5}},
        "client": {"snapshot": {"p50_ms": 23.0}, "old_snapshot": {"p50_ms": 36.5}},
    }}  # fmt: skip
    project, client = rows("queue_snapshot", None, recorded, EXTRACTS["queue_snapshot"])
    assert project.figure == "queue snapshot p50, 1,000,000 jobs, project reader"
    assert (project.goal, project.verdict) == ("<= 20 (#6)", "met")
    assert project.ratio == pytest.approx(2.252 / 44.5)
    assert client.verdict == "missed"


def test_interactive_search_rows_bound_loaded_p95_by_three_times_idle() -> None:
    recorded = {"bulk_jobs_queued": 500, "document_bytes": 1_950_687,  # interactive_search.json
                "idle": {"VECTOR": {"p95_ms": 22.0}, "HYBRID": {"p95_ms": 30.0}},
                "loaded": {"VECTOR": {"p95_ms": 700.0}, "HYBRID": {"p95_ms": 60.0}}}  # fmt: skip
    vector, hybrid = rows("interactive_search", None, recorded, EXTRACTS["interactive_search"])
    assert vector.figure == "VECTOR search p95 during 500 bulk jobs + 2 MB ingest"
    assert (vector.goal, vector.verdict, vector.issue_goal) == ("<= 3x (#1)", "missed", 1)
    assert hybrid.ratio == pytest.approx(2.0) and hybrid.verdict == "met"


def test_python_client_rows_bound_each_client_by_its_raw_post() -> None:
    p50 = {"client_async": 10.4, "httpx_async": 10.0, "client_sync": 10.6, "httpx_sync": 10.0}
    recorded = {"latency": {path: {"p50_ms": ms} for path, ms in p50.items()}}
    table = _by_figure(rows("python_client", None, recorded, EXTRACTS["python_client"]))
    sync = table["search p50, Python client (sync)"]
    assert sync.ratio == pytest.approx(1.06)
    assert (sync.baseline, sync.verdict) == ("10.0 ms raw httpx POST", "missed")
    assert table["search p50, Python client (async)"].verdict == "met"


def test_a_repository_ingest_with_the_local_model_is_held_to_five_minutes() -> None:
    # docs/benchmarks.md's figures of bench.code --embedder local
    data: dict[str, Any] = {
        "files": 1077,
        "end_to_end": {"seconds": 256.8},
        "goal_seconds": 300.0,
        "embedding_alone": {"texts": 9284, "seconds": 202.2},
    }
    (row,) = rows("code_local", None, data, EXTRACTS["code_local"])
    assert row.verdict == "met" and row.ratio == pytest.approx(256.8 / 202.2)
    slow = {**data, "end_to_end": {"seconds": 540.0}}
    assert rows("code_local", None, slow, EXTRACTS["code_local"])[0].verdict == "missed"
