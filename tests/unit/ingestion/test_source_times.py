"""Source times: the dates a source carries (an e-mail's Date, a page's Last-Modified, a
PDF's ModDate, an Office file's core properties, a commit's author date) read leniently:
what cannot be read or is implausible is dropped and logged at debug, never raised; a
writer's time wins over the source's."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from kenning.domain.ingestion.source_times import (
    email_date,
    first_time,
    iso_date,
    observed,
    pdf_date,
    source_time,
)

JULY = datetime(2024, 7, 1, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "Mon, 01 Jul 2024 10:00:00 +0200",
        "Mon, 01 Jul 2024 08:00:00 GMT",  # HTTP's Last-Modified form
        "1 Jul 2024 08:00:00 -0000",  # no weekday, unknown zone: taken as UTC
    ],
)
def test_rfc_5322_dates_are_read_in_utc(text: str) -> None:
    assert email_date(text) == JULY


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("D:20240701100000+02'00'", JULY),
        ("D:20240701080000Z", JULY),
        ("D:20240701080000", JULY),  # no zone: UTC
        ("20240701063000-01'30'", JULY),  # no D: prefix, a negative offset with minutes
        ("D:2024", datetime(2024, 1, 1, tzinfo=UTC)),  # only the year
        ("D:20240701080000Z00'00'", JULY),
    ],
)
def test_pdf_dates_are_read_with_their_optional_parts(text: str, expected: datetime) -> None:
    assert pdf_date(text) == expected


def test_iso_dates_as_git_prints_them() -> None:
    assert iso_date("2024-07-01T10:00:00+02:00") == JULY
    assert iso_date("2024-07-01T08:00:00") == JULY


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        None,
        "yesterday",
        "Mon, 32 Jul 2024 10:00:00 +0000",
        "D:20241399000000",
        "D:2024xx",
    ],
)
def test_what_cannot_be_read_is_none(text: str | None) -> None:
    assert email_date(text) is None
    assert pdf_date(text) is None
    assert iso_date(text) is None


def test_implausible_times_are_dropped_and_logged_at_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = datetime.now(UTC)
    with caplog.at_level(logging.DEBUG, logger="kenning.ingestion"):
        assert email_date("Sat, 01 Jan 1870 00:00:00 +0000") is None
        assert pdf_date(f"D:{now.year + 1}0101000000Z") is None
        assert iso_date("not a date") is None
    messages = [r.getMessage() for r in caplog.records]
    assert messages.count("ingestion.source_time_ignored") == 2
    assert messages.count("ingestion.source_time_unreadable") == 1
    assert all(r.levelno == logging.DEBUG for r in caplog.records)


def test_a_day_of_clock_skew_is_tolerated_but_not_more() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert source_time(now + timedelta(hours=23), "x", now) == now + timedelta(hours=23)
    assert source_time(now + timedelta(days=1, minutes=1), "x", now) is None
    assert source_time(datetime(1900, 1, 1, tzinfo=UTC), "x", now) is not None
    assert source_time(datetime(1899, 12, 31, 23, 59, tzinfo=UTC), "x", now) is None


def test_document_properties_take_the_first_plausible_time() -> None:
    naive_utc = datetime(2024, 7, 1, 8, 0)  # python-docx and openpyxl give naive UTC
    assert first_time(None, naive_utc) == JULY
    assert first_time(datetime(1601, 1, 1), naive_utc) == JULY  # a zeroed FILETIME
    assert first_time("2024-07-01", None) is None  # text is not a library's datetime


def test_the_writer_wins_over_the_source() -> None:
    writer = datetime(2020, 1, 1, tzinfo=UTC)
    assert observed(writer, JULY) == writer
    assert observed(None, JULY) == JULY
    assert observed(None, None) is None
