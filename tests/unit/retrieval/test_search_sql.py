"""Search SQL text: filters become numbered parameters, never text."""

from __future__ import annotations

from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.db.visibility import visible_rows
from kenning.storage.retrieval import bm25_sql, exact_sql, vector_sql
from kenning.storage.retrieval.filter_sql import StatementArgs

HOSTILE = "x'); DROP TABLE chunks; --"


def test_only_the_filters_given_are_added_numbered_after_the_fixed_five() -> None:
    statement = vector_sql.nearest(SearchFilters(tags=("a",), source_urns=("u1", "u2")))
    assert "c.tags && $6::text[]" in statement.text
    assert "c.source_urn = ANY($7::text[])" in statement.text
    assert "c.kind = ANY" not in statement.text and "$8" not in statement.text
    assert statement.filter_args == (["a"], ["u1", "u2"])


def test_statement_args_give_each_value_the_number_the_text_uses() -> None:
    statement = bm25_sql.matching_narrow(SearchFilters(tags=("t",), connection_ids=("k",)))
    args = StatementArgs(Scope("acme", "web", "ui"), "deploy checklist")
    values = args.values(statement, 7)
    # $n is values[n - 1]: the scope, the query, the limit, then the filters in order.
    assert values == ("acme", "web", "ui", "deploy checklist", 7, ["t"], ["k"])
    assert "$4)" in statement.text and "LIMIT $5" in statement.text
    assert "c.tags && $6::text[]" in statement.text
    assert "c.connection_id = ANY($7::text[])" in statement.text
    assert args.fixed(7) == values[:5] and args.scope == values[:3]


def test_values_travel_as_parameters_in_both_statements() -> None:
    filters = SearchFilters(
        kinds=(HOSTILE,), knowledge_types=(HOSTILE,), tags=(HOSTILE,), source_urns=(HOSTILE,)
    )
    for statement in (vector_sql.nearest(filters), bm25_sql.matching(filters)):
        assert HOSTILE not in statement.text
        assert statement.filter_args == ([HOSTILE],) * 4
        assert "$9::text[]" in statement.text


def test_every_statement_is_scoped_by_the_visibility_predicate() -> None:
    for statement in (
        vector_sql.nearest(SearchFilters()),
        bm25_sql.matching(SearchFilters()),
    ):
        assert visible_rows(1, "c") in statement.text


def test_the_new_filters_are_parameters_too_and_times_are_bounds() -> None:
    after = datetime(2026, 1, 1, tzinfo=UTC)
    filters = SearchFilters(
        info_types=(HOSTILE,),
        source_kinds=(HOSTILE,),
        connection_ids=(HOSTILE,),
        entity_keys=(HOSTILE,),
        created_after=after,
        observed_before=after,
    )
    for statement in (
        vector_sql.nearest(filters),
        bm25_sql.matching(filters),
        bm25_sql.matching_exhaustive(filters),
        bm25_sql.matching_narrow(filters),
        exact_sql.nearest_exact(filters),
    ):
        assert HOSTILE not in statement.text
        assert statement.filter_args == ([HOSTILE],) * 4 + (after, after)
        assert "created_at >= $10::timestamptz" in statement.text
        assert "observed_at < $11::timestamptz" in statement.text


def test_the_exact_scan_reads_the_columns_its_side_table_lacks_from_the_chunk() -> None:
    statement = exact_sql.nearest_exact(SearchFilters(kinds=("a",), source_kinds=("b",)))
    candidates = statement.text.split("candidates AS")[1].split("nearest AS")[0]
    assert "v.kind = ANY($6::text[])" in candidates
    assert "EXISTS (SELECT FROM chunks f WHERE f.client_id = v.client_id AND f.id = v.id " in (
        candidates
    )
    assert "f.source_kind = ANY($7::text[])" in candidates
    assert "v.source_kind" not in statement.text
