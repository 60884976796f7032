"""What text PostgreSQL can store, said the same for ASCII text (checked by its flag and a
NUL search) as for any other, and a large ASCII document checked at memory speed."""

from __future__ import annotations

import time

import pytest

from kenning.domain.storable_text import unstorable

NUL = "a NUL character (U+0000)"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("plain words", None),
        ("tail\x00", NUL),
        ("\x00" + "a" * 1000, NUL),
        ("café", None),
        ("café\x00", NUL),
        ("é\ud800", "a lone surrogate (U+D800)"),
        ("\udfff", "a lone surrogate (U+DFFF)"),
        ("😀", None),
    ],
)
def test_what_cannot_be_stored(text: str, what: str | None) -> None:
    assert unstorable(text) == what


def test_a_25_mb_ascii_document_is_checked_without_a_regex_step_per_character() -> None:
    document = "word " * 5_300_000
    started = time.perf_counter()
    assert unstorable(document) is None
    assert time.perf_counter() - started < 0.02  # the regex took 70 ms
