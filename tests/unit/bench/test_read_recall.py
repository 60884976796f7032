"""The read benchmark's recall and overlap arithmetic, and the exact statement it derives."""

from __future__ import annotations

import pytest

from bench._read_corpus import Spec, search_queries
from bench._read_recall import exact_text, is_sentence, overlap_at, recall_at, summary
from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.retrieval.vector_sql import nearest


def test_recall_counts_the_exact_top_k_that_was_found() -> None:
    exact = [("a", 0.1), ("b", 0.2), ("c", 0.3), ("d", 0.4)]
    assert recall_at([("a", 0.1), ("b", 0.2), ("c", 0.3)], exact, 3) == 1.0
    assert recall_at([("a", 0.1), ("d", 0.4), ("e", 0.5)], exact, 3) == pytest.approx(1 / 3)
    assert recall_at([], exact, 3) == 0.0


def test_recall_reads_only_the_top_k_of_what_was_found() -> None:
    exact = [("a", 0.1), ("b", 0.2)]
    assert recall_at([("x", 0.5), ("y", 0.6), ("a", 0.1), ("b", 0.2)], exact, 2) == 0.0


def test_a_found_row_tied_with_the_exact_kth_counts() -> None:
    exact = [("a", 0.1), ("b", 0.3)]
    assert recall_at([("a", 0.1), ("c", 0.3)], exact, 2) == 1.0
    assert recall_at([("a", 0.1), ("c", 0.30001)], exact, 2) == 0.5


def test_recall_when_fewer_rows_are_visible_than_k() -> None:
    exact = [("a", 0.1), ("b", 0.9)]
    assert recall_at([("a", 0.1), ("b", 0.9)], exact, 10) == 1.0
    # With fewer than k visible there is no k-th distance: a stranger never counts.
    assert recall_at([("a", 0.1), ("z", 0.05)], exact, 10) == 0.5
    assert recall_at([], [], 10) == 1.0


def test_overlap_is_shared_ids_over_the_exact_top_k() -> None:
    assert overlap_at(["a", "b", "c"], ["c", "b", "a"], 3) == 1.0
    assert overlap_at(["a", "x"], ["a", "b"], 2) == 0.5
    assert overlap_at(["a", "b", "x"], ["a", "b", "c"], 2) == 1.0
    assert overlap_at([], [], 20) == 1.0
    assert overlap_at(["a"], [], 20) == 0.0
    assert overlap_at(["a"], ["a", "b"], 20) == 0.5


def test_summary_gives_mean_minimum_and_count() -> None:
    assert summary([1.0, 0.5, 0.9]) == {"mean": pytest.approx(0.8), "min": 0.5, "count": 3}


def test_the_exact_statement_keeps_the_server_s_predicate_and_drops_the_index_order() -> None:
    server = nearest(SearchFilters(), one_client=True).text
    exact = exact_text(server)
    assert "(c.embedding <=> $4) + 0 LIMIT" in exact
    assert "ORDER BY c.embedding <=> $4 LIMIT" not in exact
    # Everything else, the scope predicate and the partition hint too, is the server's.
    assert exact.replace("(c.embedding <=> $4) + 0", "c.embedding <=> $4") == server


def test_an_unexpected_nearest_statement_stops_the_run() -> None:
    with pytest.raises(RuntimeError, match="inner ORDER BY"):
        exact_text("SELECT 1")


def test_recall_by_kind_splits_the_query_mix_in_half() -> None:
    queries = search_queries(Spec(chunks=1000), 20, salt=1)
    sentences = [q for q in queries if is_sentence(q)]
    assert len(sentences) == 10
    assert all(q.startswith("why does ") for q in sentences)
    assert all(not any(w in q for w in ("why", "does")) for q in queries if not is_sentence(q))
