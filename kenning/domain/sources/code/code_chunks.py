"""Code chunked by definition: each definition's own lines (a class's header and fields, a
method's whole body), the file's lines outside every definition (its imports first), and an
over-long run split at line boundaries. Lines are 1-based; pieces never overlap.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kenning.domain.sources.code.structure import Definition, FileStructure

DEFAULT_MAX_CHARS = 1_500
FILE_SYMBOL = ""  # the symbol of the lines outside every definition


@dataclass(frozen=True, slots=True)
class CodePiece:
    """A run of a file's lines that belongs to one symbol (``""`` for the file itself)."""

    symbol: str
    start_line: int
    end_line: int
    content: str

    @property
    def ref(self) -> str:
        """Unique within the file: ``UserService.find:12-30``, ``file:1-8``."""
        return f"{self.symbol or 'file'}:{self.start_line}-{self.end_line}"


def code_pieces(structure: FileStructure, max_chars: int = DEFAULT_MAX_CHARS) -> list[CodePiece]:
    """The file's pieces in line order (none for a file of blank lines)."""
    if max_chars < 80:
        raise ValueError(f"max_chars must be at least 80, got {max_chars}")
    lines = structure.text.splitlines()
    children: dict[str | None, list[Definition]] = {}
    for definition in structure.definitions:
        children.setdefault(definition.parent, []).append(definition)
    pieces: list[CodePiece] = []
    spans = [(FILE_SYMBOL, 1, len(lines), children.get(None, []))]
    spans += [
        (d.name, d.start_line, d.end_line, children.get(d.name, [])) for d in structure.definitions
    ]
    for symbol, start, end, inner in spans:
        for run_start, run_end in _own_runs(lines, start, end, inner):
            pieces.extend(_split(lines, symbol, run_start, run_end, max_chars))
    return sorted(pieces, key=lambda p: p.start_line)


def piece_at(pieces: list[CodePiece], line: int) -> CodePiece:
    """The piece holding ``line``, else the nearest one before it, else the first."""
    best = pieces[0]
    for piece in pieces:
        if piece.start_line <= line:
            best = piece
        if piece.start_line <= line <= piece.end_line:
            return piece
    return best


def _own_runs(
    lines: list[str], start: int, end: int, inner: list[Definition]
) -> Iterator[tuple[int, int]]:
    """Runs of ``start..end`` outside ``inner`` with some code, blank edges trimmed."""
    covered = sorted((d.start_line, d.end_line) for d in inner)
    position = start
    for inner_start, inner_end in [*covered, (end + 1, end + 1)]:
        run_start, run_end = position, min(inner_start - 1, end)
        while run_start <= run_end and not lines[run_start - 1].strip():
            run_start += 1
        while run_end >= run_start and not lines[run_end - 1].strip():
            run_end -= 1
        if run_start <= run_end and any(
            c.isalnum() for line in lines[run_start - 1 : run_end] for c in line
        ):
            yield run_start, run_end
        position = max(position, inner_end + 1)


def _split(
    lines: list[str], symbol: str, start: int, end: int, max_chars: int
) -> Iterator[CodePiece]:
    """``start..end`` as pieces of at most ``max_chars`` (a longer single line stays whole)."""
    first, size = start, 0
    for number in range(start, end + 1):
        length = len(lines[number - 1]) + 1
        if number > first and size + length > max_chars:
            yield CodePiece(symbol, first, number - 1, "\n".join(lines[first - 1 : number - 1]))
            first, size = number, 0
        size += length
    yield CodePiece(symbol, first, end, "\n".join(lines[first - 1 : end]))
