"""``DocumentBuilder``: Markdown text assembled block by block, each block's location
(heading path, page, sheet, slide) recorded as a ``Part``. Every format's reader writes
through it, so parts and text always agree.

Example::

    doc = DocumentBuilder()
    doc.heading(1, "Billing")
    doc.block("Invoices are sent monthly.")
    doc.table([["Plan", "Price"], ["Pro", "10"]])
    doc.build(MediaType.DOCX)  # parts carry section_path ("Billing",)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime

from kenning.domain.sources.files.extracted import (
    Attachment,
    ExtractedFile,
    FoundImage,
    Location,
    MediaType,
    Part,
    PartOrigin,
)

SEPARATOR = "\n\n"
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SPACES = re.compile(r"\s+")


class DocumentBuilder:
    """Collects blocks in order; ``build`` returns the ``ExtractedFile``."""

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._size = 0
        self._parts: list[Part] = []
        self._sections: list[str] = []
        self._location = Location()
        self.images: list[FoundImage] = []
        self.attachments: list[Attachment] = []
        self.notes: list[str] = []

    @property
    def location(self) -> Location:
        return self._location

    def container(
        self, *, page: int | None = None, sheet: str | None = None, slide: int | None = None
    ) -> None:
        """Start a page, sheet or slide; the heading path starts over."""
        self._sections = []
        self._location = Location((), page, sheet, slide)

    def heading(self, level: int, text: str) -> None:
        """A heading of ``level`` (1-6): it and what follows sit under it."""
        text = _SPACES.sub(" ", text).strip()
        if not text:
            return
        level = min(max(level, 1), 6)
        self._sections = [*self._sections[: level - 1], text]
        self._location = replace(self._location, section_path=tuple(self._sections))
        self.block(f"{'#' * level} {text}")

    def block(
        self, text: str, *, origin: PartOrigin = PartOrigin.TEXT, note: str | None = None
    ) -> None:
        """A paragraph (or any Markdown block) at the current location."""
        text = text.strip()
        if not text:
            return
        if self._chunks:
            self._chunks.append(SEPARATOR)
            self._size += len(SEPARATOR)
        start = self._size
        self._chunks.append(text)
        self._size += len(text)
        self._add_part(Part(start, self._size, self._location, origin, note))

    def table(self, rows: Sequence[Sequence[object]]) -> None:
        """Rows as a Markdown table, the first row its header."""
        table = markdown_table(rows)
        if table:
            self.block(table)

    def markdown(self, text: str) -> None:
        """Markdown text whose headings set the section path (none inside code fences)."""
        for level, title, body in markdown_sections(text):
            if level:
                self.heading(level, title)
            self.block(body)

    def build(
        self,
        media_type: MediaType,
        *,
        title: str | None = None,
        pages: int = 0,
        observed_at: datetime | None = None,
    ) -> ExtractedFile:
        return ExtractedFile(
            media_type=media_type,
            text="".join(self._chunks),
            parts=tuple(self._parts),
            title=(title or "").strip() or None,
            pages=pages,
            images=tuple(self.images),
            attachments=tuple(self.attachments),
            notes=tuple(dict.fromkeys(self.notes)),
            observed_at=observed_at,
        )

    def _add_part(self, part: Part) -> None:
        last = self._parts[-1] if self._parts else None
        if last is not None and (last.location, last.origin, last.note) == (
            part.location,
            part.origin,
            part.note,
        ):
            self._parts[-1] = replace(last, end=part.end)
        else:
            self._parts.append(part)


def markdown_table(rows: Sequence[Sequence[object]]) -> str:
    """Rows as a Markdown table (cells flattened to one line, ``|`` escaped); rows and columns
    empty in every cell are left out; "" if nothing is left."""
    cells = [[_cell(value) for value in row] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return ""
    width = max(len(row) for row in cells)
    cells = [row + [""] * (width - len(row)) for row in cells]
    used = [column for column in range(width) if any(row[column] for row in cells)]
    if len(used) < width:
        cells = [[row[column] for column in used] for row in cells]
        width = len(used)
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def markdown_sections(text: str) -> Iterator[tuple[int, str, str]]:
    """``(level, heading, body)`` per section of Markdown ``text``; level 0 before the first."""
    level, title, body = 0, "", []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match is None:
            body.append(line)
            continue
        yield level, title, "\n".join(body)
        level, title, body = len(match.group(1)), match.group(2), []
    yield level, title, "\n".join(body)


def _cell(value: object) -> str:
    if value is None:
        return ""
    return _SPACES.sub(" ", str(value)).strip().replace("|", "\\|")
