"""Resource limits as pure rules: page render resolution and spreadsheet cell budgets."""

from __future__ import annotations

import math

import pytest

from kenning.domain.sources.files import FileLimits, FileTooLargeError
from kenning.domain.sources.files.limits import render_dpi
from kenning.domain.sources.files.sheet_cells import CellBudget, bounded_rows


def _pixels(width_pt: float, height_pt: float, dpi: float) -> int:
    return math.ceil(width_pt / 72 * dpi) * math.ceil(height_pt / 72 * dpi)


def test_an_ordinary_page_keeps_300_dpi() -> None:
    assert render_dpi(595, 842, 300, FileLimits()) == 300  # A4: ~8.7 Mpx


@pytest.mark.parametrize(
    ("width", "height", "max_pixels"),
    [(14400, 14400, 80_000_000), (14400, 2000, 80_000_000), (612, 792, 1_000_000), (3, 5, 1)],
)
def test_a_huge_page_renders_within_the_pixel_limit(
    width: float, height: float, max_pixels: int
) -> None:
    dpi = render_dpi(width, height, 300, FileLimits(max_image_pixels=max_pixels))
    assert 0 < dpi < 300
    assert _pixels(width, height, dpi) <= max_pixels
    assert _pixels(width, height, dpi * 1.05) > max_pixels  # not needlessly blurred


@pytest.mark.parametrize(
    "field", ["max_cells", "max_ocr_seconds", "max_html_bytes", "max_html_nodes"]
)
def test_new_limits_must_be_positive(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        FileLimits(**{field: 0})


def test_a_declared_sheet_over_the_budget_is_refused_before_reading() -> None:
    budget = CellBudget.of(FileLimits(max_cells=1_000))
    budget.declare("Small", 10, 10)
    with pytest.raises(FileTooLargeError, match="'Sparse' declares 20000 rows x 702 columns"):
        budget.declare("Sparse", 20_000, 702)
    assert budget.spent == 0


def test_undeclared_sizes_are_not_refused_up_front() -> None:
    CellBudget(10).declare("Unsized", None, None)


def test_rows_are_trimmed_and_empty_rows_dropped() -> None:
    rows = [(1, None, None), (None, None, None), (None, "b", None), ()]
    assert bounded_rows("S", rows, CellBudget(100)) == [[1], [None, "b"]]


def test_padding_is_paid_for_as_it_is_read() -> None:
    budget = CellBudget(25)
    padded = ((None,) * 10 for _ in range(1_000_000))  # a lazy sheet of empty padded rows
    with pytest.raises(FileTooLargeError, match="over the limit of 25 cells"):
        bounded_rows("S", padded, budget)
    assert budget.spent == 30  # stopped at the third row, not after a million


def test_the_budget_is_shared_by_the_sheets_of_a_file() -> None:
    budget = CellBudget(10)
    bounded_rows("One", [(1, 2, 3), (4, 5, 6)], budget)
    with pytest.raises(FileTooLargeError, match="'Two'"):
        budget.declare("Two", 2, 3)


def test_a_diagonal_over_many_rows_is_refused_as_a_padded_table() -> None:
    rows = [(None,) * n + (n,) for n in range(50)]  # 1,275 cells read, 2,500 once padded
    with pytest.raises(FileTooLargeError, match="spans 50 rows x 50 columns"):
        bounded_rows("S", rows, CellBudget(2_000))


def test_a_far_cell_pads_nothing_once_empty_columns_are_dropped() -> None:
    rows = [(None,) * 99 + ("far",)] + [("near",)] * 50  # was 51 rows x 100 columns
    kept = bounded_rows("S", rows, CellBudget(1_000))
    assert kept == [[None, "far"]] + [["near"]] * 50


def test_blank_cells_are_empty_and_columns_empty_in_every_row_are_dropped() -> None:
    rows = [
        ("Name", None, " ", None, "Role", "\t"),
        (" ", "\n", None),
        ("Ada", None, "", None, "Engineer", " "),
        (None, None, "  "),
        ("Bob", 0, None, None, False),
    ]
    assert bounded_rows("S", rows, CellBudget(100)) == [
        ["Name", None, "Role"],
        ["Ada", None, "Engineer"],
        ["Bob", 0, False],
    ]


def test_a_sheet_of_padding_only_keeps_nothing() -> None:
    rows = [(None, " ", None), ("\t",), (None,) * 10, ("", "  ")]
    assert bounded_rows("S", rows, CellBudget(100)) == []
