"""Search SQL text: filters become numbered parameters, never text."""

from __future__ import annotations

from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.db.visibility import visible_rows
from kenning.storage.retrieval import search_sql

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
