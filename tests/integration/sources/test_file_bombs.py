"""Small files that would cost gigabytes or hours: sparse sheets, huge PDF pages, oversized
embedded images, and OCR past the file's time budget. Each is refused, or bounded, before
the cost is paid."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from openpyxl.utils import get_column_letter
from PIL import Image

from kenning.domain.sources.files import (
    ExtractedFile,
    FileLimits,
    FileTooLargeError,
    MediaType,
    OcrMode,
    PartOrigin,
    chunk_file,
    extract_file,
)
from kenning.storage.sources.files import LibraryFileParser, TesseractOcr
from tests.support import file_samples as samples
from tests.support import hostile_files as hostile

PARSER = LibraryFileParser()
SMALL_IMAGES = FileLimits(max_image_pixels=100_000)  # text_image() is 1400 x 130


async def extract(
    data: bytes,
    limits: FileLimits | None = None,
    ocr: OcrMode = OcrMode.NEVER,
    parser: LibraryFileParser = PARSER,
) -> ExtractedFile:
    return await extract_file(
        data, filename=None, ocr=ocr, limits=limits or FileLimits(), parser=parser,
        describer=None,
    )  # fmt: skip


async def test_a_sparse_sheet_is_refused_by_its_declared_size() -> None:
    bomb = samples.sparse_xlsx({"A1": "corner", "ZZ20000": "far"})  # 14M cells padded
    assert len(bomb) < 10_000
    with pytest.raises(FileTooLargeError, match="declares 20000 rows x 702 columns") as refused:
        await extract(bomb)
    assert refused.value.field == "file"


async def test_an_undeclared_sheet_is_stopped_while_it_is_read() -> None:
    cells = {f"{column}{row}": row for row in range(1, 51) for column in ("A", "Z")}
    sheet = hostile.without_dimension(samples.sparse_xlsx(cells))  # 50 rows padded to Z
    with pytest.raises(FileTooLargeError, match="has over the limit of 1000 cells"):
        await extract(sheet, FileLimits(max_cells=1_000))
    assert "| 50 |" in (await extract(sheet, FileLimits(max_cells=1_300))).text


async def test_a_diagonal_over_many_rows_is_refused_as_a_padded_table() -> None:
    cells: dict[str, str | int] = {f"{get_column_letter(n)}{n}": n for n in range(1, 61)}
    sheet = hostile.without_dimension(samples.sparse_xlsx(cells))  # 1,830 cells read
    with pytest.raises(FileTooLargeError, match="spans 60 rows x 60 columns"):
        await extract(sheet, FileLimits(max_cells=2_000))


async def test_one_far_cell_over_many_rows_pads_nothing() -> None:
    cells: dict[str, str | int] = {"ZZ1": "far"} | {f"A{row}": row for row in range(2, 601)}
    sheet = hostile.without_dimension(samples.sparse_xlsx(cells))  # was 600 x 702 padded
    lines = (await extract(sheet, FileLimits(max_cells=2_000))).text.splitlines()
    assert lines[2:5] == ["|  | far |", "|---|---|", "| 2 |  |"]
    assert lines[-1] == "| 600 |  |"


async def test_padding_is_dropped_and_the_real_table_kept() -> None:
    padded = hostile.padded_xlsx(rows=60)  # read naively: 3 MB of "|  |  |", 3,220 chunks
    assert len(padded) < 10_000
    extracted = await extract(padded)
    assert extracted.text.splitlines()[:5] == [
        "## Sales", "", "| Region | Revenue |", "|---|---|", "| Region 2 | 200 |",
    ]  # fmt: skip
    assert extracted.text.endswith("| Region 60 | 6000 |")
    assert "|  |" not in extracted.text
    chunks = chunk_file(extracted, "file:padded.xlsx")
    assert [c.metadata["sheet"] for c in chunks] == ["Sales"]  # "Blank" makes none


async def test_a_workbook_of_padding_only_makes_no_chunks_and_no_error() -> None:
    extracted = await extract(samples.sparse_xlsx({"A1": " ", "C3": "\t", "XFD9": "  "}))
    assert (extracted.media_type, extracted.text, extracted.pages) == (MediaType.XLSX, "", 1)
    assert chunk_file(extracted, "file:blank.xlsx") == []


async def test_a_sparse_sheet_within_the_limit_keeps_only_its_used_cells() -> None:
    extracted = await extract(samples.sparse_xlsx({"A1": "Name", "B1": "Role", "B3": "Ada"}))
    assert extracted.text.splitlines()[-2:] == ["|---|---|", "|  | Ada |"]


async def test_a_huge_pdf_page_is_rendered_within_the_pixel_limit() -> None:
    seen: list[tuple[int, int]] = []

    class MeasuringOcr(TesseractOcr):
        def read(self, image: bytes, *, timeout_s: float | None = None) -> str:
            with Image.open(io.BytesIO(image)) as decoded:
                seen.append(decoded.size)
            return super().read(image, timeout_s=timeout_s)

    page = samples.large_page_scan(["HUGE PAGE TEXT"], points=800)  # 3334 px wide at 300 dpi
    limits = FileLimits(max_image_pixels=2_000_000)
    extracted = await extract(page, limits, OcrMode.ALWAYS, LibraryFileParser(MeasuringOcr()))
    [(width, height)] = seen
    assert width * height <= 2_000_000 and width > 1_300
    assert "HUGE PAGE TEXT" in extracted.text
    assert "page 1 rendered for OCR at 126 dpi to stay within 2000000 pixels" in extracted.notes


@pytest.mark.parametrize(
    "office",
    [samples.sample_docx(with_image=True), samples.sample_pptx()],
    ids=["docx", "pptx"],
)
async def test_an_embedded_image_over_the_pixel_limit_refuses_the_file(office: bytes) -> None:
    assert (await extract(office)).images  # within the default limit the image is kept
    with pytest.raises(FileTooLargeError, match="1400x130 pixels, over the limit of 100000"):
        await extract(office, SMALL_IMAGES)


async def test_an_e_mail_image_over_the_pixel_limit_refuses_the_message() -> None:
    message = samples.sample_email([("scan.png", samples.text_image(["X"]), "image/png")])
    with pytest.raises(FileTooLargeError, match="over the limit of 100000"):
        await extract(message, SMALL_IMAGES)


async def test_an_undecodable_embedded_image_is_skipped_with_a_note() -> None:
    broken = hostile.with_broken_media(samples.sample_docx(with_image=True))
    extracted = await extract(broken, ocr=OcrMode.AUTO)
    assert not extracted.images
    assert any("embedded image was skipped" in note for note in extracted.notes)
    assert "Refunds are approved" in extracted.text


async def test_pages_past_the_ocr_time_budget_are_skipped_with_a_note() -> None:
    ticks = itertools.count(step=100)  # every OCR run seems to take 100 s
    parser = LibraryFileParser(clock=lambda: float(next(ticks)))
    scanned = samples.scanned_pdf("A page with a text layer.", ["INVOICE NUMBER 4711"])
    extracted = await extract(scanned, FileLimits(max_ocr_seconds=50), OcrMode.ALWAYS, parser)
    assert [part.origin for part in extracted.parts] == [PartOrigin.OCR]  # page 2 left unread
    assert "INVOICE" not in extracted.text
    assert (
        "1 page(s) or image(s) not read by OCR: the file's OCR time budget of 50 s was spent"
    ) in extracted.notes


def _slow_tesseract(tmp_path: Path) -> TesseractOcr:
    script = tmp_path / "slow-tesseract"
    script.write_text("#!/bin/sh\nexec sleep 30\n")
    script.chmod(0o755)
    return TesseractOcr(command=str(script), timeout_s=0.5)


async def test_an_ocr_run_is_stopped_at_the_budget_and_the_file_kept(tmp_path: Path) -> None:
    engine = _slow_tesseract(tmp_path)
    parser = LibraryFileParser(TesseractOcr(command=engine.command, timeout_s=60))
    image = samples.text_image(["SLOW"])
    extracted = await extract(image, FileLimits(max_ocr_seconds=0.5), OcrMode.AUTO, parser)
    assert extracted.images[0].ocr_text == ""
    assert any("OCR time budget of 0.5 s was spent" in note for note in extracted.notes)


async def test_one_image_over_the_engine_timeout_still_refuses_the_file(tmp_path: Path) -> None:
    parser = LibraryFileParser(_slow_tesseract(tmp_path))
    with pytest.raises(FileTooLargeError, match="OCR of one image took longer"):
        await extract(samples.text_image(["SLOW"]), ocr=OcrMode.AUTO, parser=parser)
