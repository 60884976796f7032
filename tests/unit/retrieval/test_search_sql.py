"""Search SQL text: filters become numbered parameters, never text."""

from __future__ import annotations

from datetime import UTC, datetime

from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.db.visibility import visible_rows
from kenning.storage.retrieval import exact_sql, search_sql

HOSTILE = "x'); DROP TABLE chunks; --"


def test_only_the_filters_given_are_added_numbered_after_the_fixed_five() -> None:
    statement = search_sql.nearest(SearchFilters(tags=("a",), source_urns=("u1", "u2")))
    assert "c.tags && $6::text[]" in statement.text
    assert "c.source_urn = ANY($7::text[])" in statement.text
    assert "c.kind = ANY" not in statement.text and "$8" not in statement.text
    assert statement.filter_args == (["a"], ["u1", "u2"])


def test_values_travel_as_parameters_in_both_statements() -> None:
    filters = SearchFilters(
        kinds=(HOSTILE,), knowledge_types=(HOSTILE,), tags=(HOSTILE,), source_urns=(HOSTILE,)
    )
    for statement in (search_sql.nearest(filters), search_sql.matching(filters)):
        assert HOSTILE not in statement.text
        assert statement.filter_args == ([HOSTILE],) * 4
        assert "$9::text[]" in statement.text


def test_every_statement_is_scoped_by_the_visibility_predicate() -> None:
    for statement in (
        search_sql.nearest(SearchFilters()),
        search_sql.matching(SearchFilters()),
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
        search_sql.nearest(filters),
        search_sql.matching(filters),
        search_sql.matching_exhaustive(filters),
        search_sql.matching_narrow(filters),
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
