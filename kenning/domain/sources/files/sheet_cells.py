"""Spreadsheet cells read under a budget. A sparse sheet (cells at A1 and XFD1048576) is a
few kB on disk but its reader pads every row to the last column and yields every empty row
between: the sheet's declared size is refused before any row is read, and the rows actually
read are counted as they come (a sheet may declare no size, or a false one). What is kept is
only the rows and columns holding a value: a space in column XFD of every row would
otherwise make a table 16,384 columns wide, megabytes of ``|  |`` from a few kB."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kenning.domain.sources.files.errors import FileTooLargeError
from kenning.domain.sources.files.limits import FileLimits


@dataclass(slots=True)
class CellBudget:
    """The cells one file may still read (``FileLimits.max_cells``, shared by its sheets)."""

    limit: int
    spent: int = 0

    @classmethod
    def of(cls, limits: FileLimits) -> CellBudget:
        return cls(limits.max_cells)

    def declare(self, sheet: str, rows: int | None, columns: int | None) -> None:
        """Refuse a sheet whose declared rows x columns would overdraw the budget."""
        if rows and columns and self.spent + rows * columns > self.limit:
            raise FileTooLargeError(
                f"sheet {sheet!r} declares {rows} rows x {columns} columns, over the limit "
                f"of {self.limit} cells"
            )

    def spend(self, sheet: str, cells: int) -> None:
        self.spent += cells
        if self.spent > self.limit:
            raise FileTooLargeError(f"sheet {sheet!r} has over the limit of {self.limit} cells")


def bounded_rows(
    sheet: str, rows: Iterable[Sequence[object]], budget: CellBudget
) -> list[list[object]]:
    """The rows and columns that hold a value, each row paid for before it is kept. A cell
    with no value or whitespace only is empty (a formatted cell reads as no value): a row or
    column empty in every cell is dropped, and so are each row's trailing empty cells.

    Example: ``bounded_rows("S", [(1, None, " "), (None, None), (None, None, 2)],
    CellBudget(10))`` -> ``[[1], [None, 2]]``.
    """
    kept: list[Sequence[object]] = []
    used: set[int] = set()
    for row in rows:
        budget.spend(sheet, len(row))
        filled = [index for index, value in enumerate(row) if not _blank(value)]
        if filled:
            kept.append(row)
            used.update(filled)
    columns = sorted(used)
    # The table pads every row to the widest one: that is paid for too.
    if len(columns) * len(kept) > budget.limit:
        raise FileTooLargeError(
            f"sheet {sheet!r} spans {len(kept)} rows x {len(columns)} columns, over the "
            f"limit of {budget.limit} cells"
        )
    return [_trimmed([row[i] if i < len(row) else None for i in columns]) for row in kept]


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _trimmed(row: list[object]) -> list[object]:
    end = len(row)
    while end and _blank(row[end - 1]):
        end -= 1
    return row[:end]
