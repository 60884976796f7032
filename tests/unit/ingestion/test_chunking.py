"""Chunking: paragraph and sentence boundaries, long-document windows, stable ids."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.chunking import (
    LONG_DOCUMENT,
    WINDOW,
    WINDOW_OVERLAP,
    Chunk,
    chunk,
    chunk_count,
    chunk_id,
)

URN = "urn:kenning:doc:1"


def _covered(content: str, chunks: list[Chunk]) -> bool:
    covered = bytearray(len(content))
    for piece in chunks:
        covered[piece.start : piece.end] = b"\x01" * (piece.end - piece.start)
    return all(covered[i] or c.isspace() for i, c in enumerate(content))


@pytest.mark.parametrize("content", ["", "   ", "\n\t \r\n"])
def test_empty_content_is_a_validation_error(content: str) -> None:
    with pytest.raises(ValidationError) as caught:
        chunk(content, URN)
    assert caught.value.field == "content"


def test_a_source_urn_is_required() -> None:
    with pytest.raises(ValidationError) as caught:
        chunk("text", "")
    assert caught.value.field == "sourceUrn"


def test_short_content_is_one_chunk_with_exact_offsets() -> None:
    content = "\n\n  # Title\n\nFirst paragraph.\n\nSecond one.  \n"
    [only] = chunk(content, URN)
    assert only.ordinal == 0
    assert only.content == "# Title\n\nFirst paragraph.\n\nSecond one."
    assert content[only.start : only.end] == only.content


def test_paragraphs_are_packed_up_to_the_limit_and_split_on_blank_lines() -> None:
    first, second, third = "a" * 60 + ".", "b" * 30 + ".", "c" * 50 + "."
    content = f"{first}\n\n{second}\n \n{third}"
    chunks = chunk(content, URN, limit=100)
    assert [c.content for c in chunks] == [f"{first}\n\n{second}", third]


def test_a_long_paragraph_is_split_at_sentence_ends() -> None:
    sentences = [f"Sentence number {i} says something useful." for i in range(10)]
    content = " ".join(sentences)
    chunks = chunk(content, URN, limit=100)
    assert len(chunks) > 1
    for piece in chunks:
        assert len(piece.content) <= 100
        assert piece.content.startswith("Sentence number")
        assert piece.content.endswith("useful.")
    assert " ".join(c.content for c in chunks) == content


def test_a_sentence_longer_than_the_limit_is_hard_split_and_never_lost() -> None:
    word = "abcdefghij"
    content = " ".join([word] * 40) + " " + "z" * 250
    chunks = chunk(content, URN, limit=100)
    assert all(len(c.content) <= 100 for c in chunks)
    assert "".join(c.content for c in chunks).replace(" ", "") == content.replace(" ", "")
    # Words stay whole when there is a space to cut at.
    assert sum(c.content.count(word) for c in chunks) == 40


def test_long_documents_use_overlapping_windows() -> None:
    content = "".join(chr(ord("a") + i % 26) for i in range(LONG_DOCUMENT + 1000))
    chunks = chunk(content, URN)
    assert [c.start for c in chunks] == [i * (WINDOW - WINDOW_OVERLAP) for i in range(len(chunks))]
    assert all(c.end - c.start == WINDOW for c in chunks[:-1])
    assert chunks[-1].end == len(content)
    assert chunks[1].content[:WINDOW_OVERLAP] == chunks[0].content[-WINDOW_OVERLAP:]


def test_the_window_rule_starts_exactly_at_the_threshold() -> None:
    paragraph = "word " * 99 + "end."
    below = ("\n\n".join([paragraph] * 200))[: LONG_DOCUMENT - 1]
    at = below + "x"
    assert max(len(c.content) for c in chunk(below, URN)) <= 1500
    assert chunk(at, URN)[0].end - chunk(at, URN)[0].start == WINDOW


def test_ids_are_stable_and_depend_on_urn_ordinal_and_content() -> None:
    content = "One.\n\nTwo."
    first = chunk(content, URN, limit=5)
    assert first == chunk(content, URN, limit=5)
    assert all(re.fullmatch(r"[0-9a-f]{32}", c.id) for c in first)
    assert first[0].id == chunk_id(URN, 0, "One.")
    assert chunk_id(URN, 0, "One.") != chunk_id("urn:other", 0, "One.")
    assert chunk_id(URN, 0, "One.") != chunk_id(URN, 1, "One.")
    assert chunk_id(URN, 0, "One.") != chunk_id(URN, 0, "One!")
    # Parts are framed, so moving characters between them changes the id.
    assert chunk_id("a", 12, "x") != chunk_id("a1", 2, "x")


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        chunk("text", URN, limit=0)


_PROSE = st.text(
    alphabet=st.sampled_from("ab .!?\n\t\"')é"),
    min_size=1,
    max_size=600,
).filter(lambda s: s.strip() != "")


@given(_PROSE, st.integers(min_value=1, max_value=120))
def test_every_character_is_covered_and_no_chunk_exceeds_the_limit(
    content: str, limit: int
) -> None:
    chunks = chunk(content, URN, limit=limit)
    assert _covered(content, chunks)
    for piece in chunks:
        assert 0 < len(piece.content) <= limit
        assert content[piece.start : piece.end] == piece.content
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


@given(st.text(min_size=1, max_size=300).filter(lambda s: s.strip() != ""), st.integers(1, 200))
def test_any_text_is_covered(content: str, limit: int) -> None:
    chunks = chunk(content, URN, limit=limit)
    assert _covered(content, chunks)
    assert all(len(c.content) <= limit for c in chunks)


@settings(max_examples=20, deadline=None)
@given(st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != ""), st.integers(0, 5000))
def test_long_documents_are_covered_by_windows(unit: str, extra: int) -> None:
    content = (unit * (LONG_DOCUMENT // len(unit) + 1))[: LONG_DOCUMENT + extra]
    chunks = chunk(content, URN)
    assert _covered(content, chunks)
    assert all(len(c.content) <= WINDOW for c in chunks)


@given(_PROSE, st.integers(min_value=1, max_value=120))
def test_ids_are_deterministic_and_unique_within_a_document(content: str, limit: int) -> None:
    ids = [c.id for c in chunk(content, URN, limit=limit)]
    assert ids == [c.id for c in chunk(content, URN, limit=limit)]
    assert len(set(ids)) == len(ids)


@given(_PROSE, st.integers(min_value=1, max_value=700))
def test_chunk_count_is_how_many_chunks_chunk_makes(content: str, limit: int) -> None:
    assert chunk_count(content, limit=limit) == len(chunk(content, URN, limit=limit))


@pytest.mark.parametrize(
    "content",
    ["a" * (LONG_DOCUMENT + 7), "word " * LONG_DOCUMENT, "x" * 999, "x" * 1001, " \n\t "],
    ids=["one-long-token", "long-with-spaces", "under-limit", "over-limit", "blank"],
)
def test_chunk_count_of_long_and_blank_text(content: str) -> None:
    made = len(chunk(content, URN, limit=1000)) if content.strip() else 0
    assert chunk_count(content, limit=1000) == made
