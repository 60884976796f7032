"""The timeline of a (from, relation) group as a pure function of its assertions and
endings: supersession for ONE, independence for MANY, backfills, ties, retractions and
re-assertion, and the checks on times callers give."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.validity import (
    Assertion,
    Cardinality,
    Ending,
    EndReason,
    Interval,
    as_of,
    checked_observed_at,
    from_iso,
    iso,
    latest,
    timeline,
)

T = [datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=30 * i) for i in range(10)]


def said(to: str, observed: int, recorded: int | None = None, source: str = "") -> Assertion:
    rec = observed if recorded is None else recorded
    return Assertion(to, T[observed], T[rec], source or f"doc:{to}")


def test_one_ends_the_older_target_at_the_newer_assertion() -> None:
    intervals = timeline([said("mysql", 0), said("pg", 2)], [], Cardinality.ONE)
    assert intervals == [
        Interval("mysql", T[0], T[2], T[0], T[2], EndReason.SUPERSEDED, "doc:pg"),
        Interval("pg", T[2], None, T[2]),
    ]


def test_many_keeps_every_target() -> None:
    intervals = timeline([said("mysql", 0), said("pg", 2)], [], Cardinality.MANY)
    assert [(i.to_key, i.valid_to) for i in intervals] == [("mysql", None), ("pg", None)]


def test_a_backfill_is_stored_already_ended_when_it_was_learned() -> None:
    # mysql was true from T0 but arrives at T5, after pg (T2) was recorded.
    intervals = timeline([said("pg", 2), said("mysql", 0, recorded=5)], [], Cardinality.ONE)
    mysql, pg = intervals
    assert (mysql.valid_from, mysql.valid_to, mysql.recorded_at) == (T[0], T[2], T[5])
    assert mysql.ended_at == T[5]  # never before it was recorded
    assert pg.current


def test_order_is_by_valid_time_then_record_time_then_target() -> None:
    # Same valid time: the one recorded later wins; then the target decides.
    tie = timeline([said("b", 1, 1), said("a", 1, 2)], [], Cardinality.ONE)
    assert {i.to_key: i.current for i in tie} == {"b": False, "a": True}
    same = timeline([said("b", 1), said("a", 1)], [], Cardinality.ONE)
    assert {i.to_key: i.current for i in same} == {"a": False, "b": True}


def test_repeating_the_current_target_continues_it() -> None:
    # A backfill of the same target moves its start earlier; recorded when first learned.
    intervals = timeline([said("pg", 1), said("pg", 3), said("pg", 0, 4)], [], Cardinality.ONE)
    assert intervals == [Interval("pg", T[0], None, T[1])]


def test_a_retraction_ends_and_a_later_assertion_reopens() -> None:
    ending = Ending("pg", T[3], EndReason.RETRACTED, "key-1", T[3])
    intervals = timeline([said("pg", 1), said("pg", 5)], [ending], Cardinality.MANY)
    assert [(i.valid_from, i.valid_to, i.ended_reason) for i in intervals] == [
        (T[1], T[3], EndReason.RETRACTED),
        (T[5], None, None),
    ]
    assert latest(intervals)["pg"].current


def test_an_ending_of_what_does_not_hold_changes_nothing() -> None:
    ending = Ending("pg", T[0], EndReason.RETRACTED, "key-1", T[0])
    assert timeline([said("pg", 1)], [ending], Cardinality.ONE) == [
        Interval("pg", T[1], None, T[1])
    ]


def test_a_flip_back_opens_a_second_interval() -> None:
    intervals = timeline([said("a", 0), said("b", 1), said("a", 2)], [], Cardinality.ONE)
    assert [(i.to_key, i.valid_from, i.valid_to) for i in intervals] == [
        ("a", T[0], T[1]), ("b", T[1], T[2]), ("a", T[2], None),
    ]  # fmt: skip
    assert latest(intervals)["a"].valid_from == T[2]


def test_observed_times_are_checked_and_named() -> None:
    now = T[5]
    assert checked_observed_at(None, now, "observedAt") is None
    assert checked_observed_at(T[1], now, "observedAt") == T[1]
    for bad in (datetime(1899, 12, 31, tzinfo=UTC), now + timedelta(days=2),
                datetime(2024, 1, 1)):  # fmt: skip
        with pytest.raises(ValidationError) as refused:
            checked_observed_at(bad, now, "observedAt")
        assert refused.value.field == "observedAt"


def test_a_read_time_to_come_is_now() -> None:
    assert as_of(None, T[5]) is None
    assert as_of(T[6], T[5]) is None
    assert as_of(T[1], T[5]) == T[1]


def test_iso_text_round_trips_and_sorts_as_time() -> None:
    texts = [iso(t) for t in T]
    assert texts == sorted(texts)
    assert [from_iso(t) for t in texts] == T
