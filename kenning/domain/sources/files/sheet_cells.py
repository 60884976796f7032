"""Spreadsheet cells read under a budget. A sparse sheet (cells at A1 and XFD1048576) is a
few kB on disk but its reader pads every row to the last column and yields every empty row
between: the sheet's declared size is refused before any row is read, and the rows actually
read are counted as they come (a sheet may declare no size, or a false one)."""

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
    """The non-empty rows, trailing empty cells cut, each row paid for before it is kept.

    Example: ``bounded_rows("S", [(1, None), (None, None), (None, 2)], CellBudget(10))``
    -> ``[[1], [None, 2]]``.
    """
    kept: list[list[object]] = []
    width = 0
    for row in rows:
        budget.spend(sheet, len(row))
        end = len(row)
        while end and row[end - 1] is None:
            end -= 1
        if end:
            kept.append(list(row[:end]))
            width = max(width, end)
    # The table pads every row to the widest one: that is paid for too.
    if width * len(kept) > budget.limit:
        raise FileTooLargeError(
            f"sheet {sheet!r} spans {len(kept)} rows x {width} columns, over the limit "
            f"of {budget.limit} cells"
        )
    return kept
