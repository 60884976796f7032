"""Backoff schedule and the line between retrying and failing."""

from __future__ import annotations

import pytest

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.queue.backoff import backoff_delay, is_operational, retry_after_of
from kenning.domain.queue.jobs import OperationalError


def test_doubles_from_five_seconds_and_caps_at_five_minutes() -> None:
    assert [backoff_delay(n) for n in range(1, 9)] == [5, 10, 20, 40, 80, 160, 300, 300]
    assert backoff_delay(10_000) == 300


def test_retry_after_lengthens_but_never_shortens_or_exceeds_the_cap() -> None:
    assert backoff_delay(1, retry_after=2) == 5
    assert backoff_delay(1, retry_after=42) == 42
    assert backoff_delay(1, retry_after=9999) == 300


def test_failures_count_from_one() -> None:
    with pytest.raises(ValueError):
        backoff_delay(0)


@pytest.mark.parametrize(
    ("error", "retry"),
    [
        (EmbeddingError("busy", kind=EmbeddingErrorKind.OPERATIONAL), True),
        (EmbeddingError("bad dimension", kind=EmbeddingErrorKind.PERMANENT), False),
        (OperationalError("database away"), True),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (ValidationError("content is empty", field="content"), False),
        (SensitiveContentError([]), False),
        (KeyError("x"), False),
    ],
)
def test_operational_errors_retry_and_the_rest_fail(error: BaseException, retry: bool) -> None:
    assert is_operational(error) is retry


def test_retry_after_comes_from_embedding_errors_only() -> None:
    busy = EmbeddingError("busy", kind=EmbeddingErrorKind.OPERATIONAL, retry_after=7)
    assert retry_after_of(busy) == 7.0
    assert retry_after_of(TimeoutError()) is None
