"""Reading the ``relationships: [ "...", ... ]`` blocks an author puts in content.

The block is JSON-ish: quoted strings (double or single quotes, backslash escapes), commas
optional and trailing commas allowed, spanning any number of lines. It ends at ``]``; when
the ``]`` is missing (no later line is a lone ``]``) it ends before the first line that
does not continue the list, so the prose after a forgotten bracket is still read as prose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_START = re.compile(
    r"""^[ \t]*(?:[-*>][ \t]*)?["']?relationships["']?[ \t]*:[ \t]*\[""",
    re.IGNORECASE | re.MULTILINE,
)
# A line holding only the closing bracket: what a block that is really closed ends with.
_CLOSING_LINE = re.compile(r"^[ \t]*\][ \t,]*$", re.MULTILINE)
_QUOTES = "\"'"
_SEPARATORS = " \t\r,"


@dataclass(frozen=True, slots=True)
class BlockItem:
    """One quoted string of a block and the 1-based line it starts on."""

    line: int
    text: str


@dataclass(frozen=True, slots=True)
class BlockProblem:
    """Something in a block that is not a readable item."""

    line: int
    excerpt: str
    reason: str


@dataclass(frozen=True, slots=True)
class RelationshipBlock:
    """A block's span in the content (``start``..``end`` offsets), items and problems."""

    start: int
    end: int
    items: tuple[BlockItem, ...]
    problems: tuple[BlockProblem, ...]


def find_blocks(content: str) -> list[RelationshipBlock]:
    """Every relationships block of ``content`` in order."""
    blocks: list[RelationshipBlock] = []
    position = 0
    # Lines are counted on from the previous block: counting from the start for each block
    # cost seconds on a 2 MB document of many blocks.
    counted, newlines = 0, 0
    while match := _START.search(content, position):
        newlines += content.count("\n", counted, match.start())
        counted = match.start()
        block = _BlockReader(content, match.start(), match.end(), newlines + 1).read()
        blocks.append(block)
        position = max(block.end, match.end())
    return blocks


class _BlockReader:
    def __init__(self, content: str, start: int, position: int, start_line: int) -> None:
        self.content = content
        self.start = start
        self.position = position
        self.start_line = start_line
        self.line = start_line + content.count("\n", start, position)
        self.items: list[BlockItem] = []
        self.problems: list[BlockProblem] = []
        self.closing_line: int | None = None

    def read(self) -> RelationshipBlock:
        content, size = self.content, len(self.content)
        while self.position < size:
            char = content[self.position]
            if char == "\n":
                self.line += 1
                self.position += 1
            elif char in _SEPARATORS:
                self.position += 1
            elif char == "]":
                return self._block(self.position + 1)
            elif char in _QUOTES:
                self._quoted()
            elif self._at_line_start() and self._ends_unclosed():
                return self._unclosed(content.rfind("\n", 0, self.position) + 1)
            else:
                self._junk()
        return self._unclosed(size)

    def _quoted(self) -> None:
        content, size = self.content, len(self.content)
        quote = content[self.position]
        index = self.position + 1
        text: list[str] = []
        while index < size and content[index] != "\n":
            char = content[index]
            if char == quote:
                self.items.append(BlockItem(self.line, "".join(text)))
                self.position = index + 1
                return
            if char == "\\" and index + 1 < size and content[index + 1] != "\n":
                index += 1
                char = content[index]
            text.append(char)
            index += 1
        self.problems.append(BlockProblem(self.line, "".join(text), "unterminated string"))
        self.position = index

    def _junk(self) -> None:
        end = self.position
        while end < len(self.content) and self.content[end] not in ",\n":
            end += 1
        excerpt = self.content[self.position : end]
        self.problems.append(BlockProblem(self.line, excerpt, "expected a quoted string"))
        self.position = end

    def _at_line_start(self) -> bool:
        line_start = self.content.rfind("\n", 0, self.position) + 1
        return line_start > self.start and not self.content[line_start : self.position].strip()

    def _ends_unclosed(self) -> bool:
        line_start = self.content.rfind("\n", 0, self.position) + 1
        if _START.match(self.content, line_start):
            return True
        # Searched once per block: the result holds until the reader passes that line.
        if self.closing_line is None or self.closing_line < self.position:
            self.closing_line = len(self.content) + 1
            closing = _CLOSING_LINE.search(self.content, self.position)
            if closing:
                # A ']' that belongs to a later block does not close this one.
                next_block = _START.search(self.content, self.position, closing.start())
                self.closing_line = self.closing_line if next_block else closing.start()
        return self.closing_line > len(self.content)

    def _unclosed(self, end: int) -> RelationshipBlock:
        newline = self.content.find("\n", self.start, end)
        first_line = self.content[self.start : newline if newline >= 0 else end]
        opening_line = self.start_line
        reason = "relationships block is not closed with ']'"
        self.problems.append(BlockProblem(opening_line, first_line, reason))
        return self._block(end)

    def _block(self, end: int) -> RelationshipBlock:
        return RelationshipBlock(self.start, end, tuple(self.items), tuple(self.problems))


def mask_blocks(content: str, blocks: Sequence[RelationshipBlock]) -> str:
    """``content`` with the blocks blanked (newlines kept), so prose scanning skips them
    and offsets still hold."""
    if not blocks:
        return content
    parts: list[str] = []
    position = 0
    for block in blocks:
        parts.append(content[position : block.start])
        parts.append(re.sub(r"[^\n]", " ", content[block.start : block.end]))
        position = block.end
    parts.append(content[position:])
    return "".join(parts)
