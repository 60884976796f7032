"""The read benchmark's rows in the make-bench table: recall, keyword agreement, ingest at size."""

from __future__ import annotations

from typing import Any

from bench._read_figures import read
from bench._read_ingest import URN_PREFIX, ingest_documents
from bench._read_report import background_line


def _latency(p50: float) -> dict[str, float]:
    return {"p50_ms": p50, "p95_ms": p50 * 2, "mean_ms": p50, "count": 10}


def _run(**extra: Any) -> dict[str, Any]:
    ops = {
        "search": {"latency": {"graphql": _latency(20), "sql": _latency(10)}},
        "neighbors": {"latency": {"graphql": _latency(12), "sql": _latency(10)}},
    }
    return {"spec": {"chunks": 1_000_000}, "ops": ops, **extra}


def test_a_run_without_the_new_parts_keeps_its_old_rows() -> None:
    labels = [f.label for f in read(_run())]
    assert labels == ["HYBRID search p50, 1M chunks", "2-hop neighbors p50"]


def test_recall_keyword_ingest_and_build_become_rows() -> None:
    quality = {
        "vector_recall": {
            "recall_at_10": {"mean": 0.93, "min": 0.6, "count": 200},
            "recall_at_10_by_kind": {
                "sentences": {"mean": 0.97, "min": 0.8, "count": 100},
                "names": {"mean": 0.89, "min": 0.6, "count": 100},
            },
        },
        "keyword_agreement": {
            "depth": 20,
            "overlap_at_20": {"mean": 0.99, "min": 0.8, "count": 200},
            "latency": {"topk": _latency(8), "exhaustive": _latency(40)},
        },
    }
    writes = {"corpus": {"docs_per_s": 30.0}, "empty": {"docs_per_s": 40.0}}
    data = {"built_now": True, "build": {"hnsw_s": 600.0}}
    found = {
        f.label: f for f in read(_run(search_quality=quality, ingest_at_size=writes, data=data))
    }
    recall = found["scoped vector recall@10 vs exact scan"]
    assert recall.kenning == 0.93 and recall.goal is not None
    assert recall.goal.met(recall.kenning, None) is False
    assert found["scoped vector recall@10, sentences only"].kenning == 0.97
    assert found["scoped vector recall@10, names only"].kenning == 0.89
    assert found["KEYWORD top-20 overlap with exhaustive BM25"].kenning == 0.99
    keyword = found["KEYWORD top-k statement p50"]
    assert (keyword.kenning, keyword.baseline) == (8, 40)
    ingest = found["ingest docs/s with the corpus stored"]
    assert ingest.goal is not None and ingest.goal.met(30.0, 30.0 / 40.0) is False
    assert found["HNSW index build"].kenning == 600.0


def test_ingest_documents_are_distinct_and_under_their_own_prefix() -> None:
    docs = ingest_documents(50, seed=1)
    assert len({d.source_urn for d in docs}) == 50
    assert all(d.source_urn.startswith(URN_PREFIX) for d in docs)
    assert ingest_documents(10, seed=1) == docs[:10]


def test_another_seed_draws_other_documents() -> None:
    """A run must not ingest what the previous run purged (see ``bench._read_ingest``)."""
    first, second = ingest_documents(20, seed=1), ingest_documents(20, seed=2)
    assert not {d.content for d in first} & {d.content for d in second}


def test_the_report_says_what_vacuums_ran_beside_the_measurement() -> None:
    line = background_line(
        {
            "settle_wait_s": 600.2,
            "vacuums_running_at_start": 1,
            "autovacuum_runs": 3,
            "vacuums_running_at_end": 2,
        }
    )
    assert line.startswith("background: waited 600 s for vacuums to end, then a checkpoint;")
    assert "1 vacuums still running at the start" in line  # the wait gave up
    assert "3 autovacuum/autoanalyze runs ended during the passes, 2 running at the end" in line


def test_the_report_says_what_the_server_loaded_into_memory_before_the_passes() -> None:
    line = background_line(
        {
            "resident": {"rows": {"sql": 118_000, "graphql": 118_000}, "server_wait_s": 2.34},
            "settle_wait_s": 0.0,
            "autovacuum_runs": 0,
        }
    )
    assert line.startswith(
        "background: the server loaded 118,000 resident rows in 2.3 s after the warm-up; waited"
    )
