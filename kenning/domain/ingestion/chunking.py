"""Splitting content into chunks with stable ids.

Boundaries fall on blank lines between paragraphs; a paragraph longer than the limit is
split at sentence ends (or line breaks), and a sentence longer than the limit at the last
space that fits, or hard at the limit. Consecutive pieces are packed into one chunk while
it stays within the limit, so a heading is not a chunk on its own. Documents of
``LONG_DOCUMENT`` characters or more use fixed overlapping windows instead.

A chunk's ``content`` is exactly ``source[start:end]``, so evidence can point back into the
source text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from kenning.domain.errors import ValidationError

DEFAULT_LIMIT = 1500
LONG_DOCUMENT = 40_000
WINDOW = 4_000
WINDOW_OVERLAP = 200
ID_LENGTH = 32

_BLANK_LINES = re.compile(r"\n\s*\n")
# A sentence ends at . ! ? (maybe closed by a quote or bracket) before a space, or at a
# line break; the separator matched is whitespace only, so no character is dropped.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"')\]]))\s+|\s*\n\s*")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a source: ``content == source[start:end]``; ``id`` is stable."""

    id: str
    ordinal: int
    content: str
    start: int
    end: int


def chunk(content: str, source_urn: str, *, limit: int = DEFAULT_LIMIT) -> list[Chunk]:
    """Split ``content`` into chunks of at most ``limit`` characters (windows when long)."""
    if not content.strip():
        raise ValidationError("content is empty", field="content")
    if not source_urn:
        raise ValidationError("a source URN is required", field="sourceUrn")
    return [
        Chunk(
            chunk_id(source_urn, ordinal, content[start:end]),
            ordinal,
            content[start:end],
            start,
            end,
        )
        for ordinal, (start, end) in enumerate(_spans(content, limit))
    ]


def chunk_count(content: str, *, limit: int = DEFAULT_LIMIT) -> int:
    """How many chunks ``chunk`` makes of ``content`` (0 when it is blank), without making
    them: no ids are hashed, and text within the limit is one chunk without being split."""
    if len(content) <= limit and len(content) < LONG_DOCUMENT:
        return 1 if content.strip() else 0
    return len(_spans(content, limit))


def _spans(content: str, limit: int) -> list[tuple[int, int]]:
    if limit < 1:
        raise ValueError(f"chunk limit must be positive, got {limit}")
    spans = _windows(len(content)) if len(content) >= LONG_DOCUMENT else _packed(content, limit)
    return [(start, end) for start, end in spans if content[start:end].strip()]


def chunk_id(source_urn: str, ordinal: int, content: str) -> str:
    """The stable id of a chunk: a sha256 prefix over source URN, ordinal and content."""
    # JSON framing keeps the three parts unambiguous ("a", 12 differs from "a1", 2).
    framed = json.dumps([source_urn, ordinal, content], ensure_ascii=True)
    return hashlib.sha256(framed.encode("ascii")).hexdigest()[:ID_LENGTH]


def _windows(size: int) -> Iterator[tuple[int, int]]:
    start = 0
    while True:
        end = min(start + WINDOW, size)
        yield start, end
        if end == size:
            return
        start = end - WINDOW_OVERLAP


def _packed(content: str, limit: int) -> Iterator[tuple[int, int]]:
    current: tuple[int, int] | None = None
    for start, end in _pieces(content, limit):
        if current is not None and end - current[0] <= limit:
            current = (current[0], end)
            continue
        if current is not None:
            yield current
        current = (start, end)
    if current is not None:
        yield current


def _pieces(content: str, limit: int) -> Iterator[tuple[int, int]]:
    for start, end in _split(content, 0, len(content), _BLANK_LINES):
        if end - start <= limit:
            yield start, end
            continue
        for s_start, s_end in _split(content, start, end, _SENTENCE_END):
            yield from _hard_split(content, s_start, s_end, limit)


def _split(
    content: str, start: int, end: int, separator: re.Pattern[str]
) -> Iterator[tuple[int, int]]:
    """Trimmed, non-empty spans of ``content[start:end]`` between ``separator`` matches."""
    position = start
    for match in separator.finditer(content, start, end):
        yield from _trimmed(content, position, match.start())
        position = match.end()
    yield from _trimmed(content, position, end)


def _trimmed(content: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and content[start].isspace():
        start += 1
    while end > start and content[end - 1].isspace():
        end -= 1
    if start < end:
        yield start, end


def _hard_split(content: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    while end - start > limit:
        cut = start + limit
        # Prefer the last space in the second half of the window, so words stay whole.
        space = content.rfind(" ", start + limit // 2, cut + 1)
        if space > start:
            cut = space
        yield from _trimmed(content, start, cut)
        start = cut
        while start < end and content[start].isspace():
            start += 1
    yield from _trimmed(content, start, end)
