"""Pure rules of file extraction: located Markdown, chunks by structure, size rules, and
images turned into text with or without a vision backend."""

from __future__ import annotations

import pytest

from kenning.domain.models.ports import ModelCallError
from kenning.domain.sources.files import (
    OCR_ONLY,
    ArchiveEntry,
    DocumentBuilder,
    ExtractedFile,
    FileLimits,
    FileTooLargeError,
    FoundImage,
    Location,
    MediaType,
    OcrMode,
    PartOrigin,
    ZipBombError,
    check_archive,
    chunk_file,
    extract_file,
    markdown_table,
)
from kenning.domain.sources.files.document import markdown_sections
from tests.support.file_samples import ScriptedDescriber

MB = 1024 * 1024


def test_headings_become_section_paths_of_the_parts() -> None:
    doc = DocumentBuilder()
    doc.heading(1, "Billing")
    doc.block("Invoices monthly.")
    doc.heading(2, "Refunds")
    doc.block("Within five days.")
    doc.heading(1, "Support")
    doc.block("One day.")
    built = doc.build(MediaType.DOCX)
    paths = [(p.location.section_path, built.part_text(p)) for p in built.parts]
    assert paths == [
        (("Billing",), "# Billing\n\nInvoices monthly."),
        (("Billing", "Refunds"), "## Refunds\n\nWithin five days."),
        (("Support",), "# Support\n\nOne day."),
    ]


def test_a_new_page_starts_a_new_part_and_resets_the_sections() -> None:
    doc = DocumentBuilder()
    doc.container(page=1)
    doc.heading(1, "Intro")
    doc.block("first")
    doc.container(page=2)
    doc.block("second")
    built = doc.build(MediaType.PDF, pages=2)
    assert [p.location for p in built.parts] == [
        Location(("Intro",), page=1),
        Location((), page=2),
    ]


def test_tables_are_markdown_with_pipes_escaped_and_rows_padded() -> None:
    table = markdown_table([["a", "b|c"], ["1"], [None, None]])
    assert table == "| a | b\\|c |\n|---|---|\n| 1 |  |"


def test_table_columns_empty_in_every_row_are_dropped() -> None:
    table = markdown_table([["a", " ", None, "b"], ["1", "", None, "2", "\t"], [None, " "]])
    assert table == "| a | b |\n|---|---|\n| 1 | 2 |"


def test_headings_inside_code_fences_are_not_sections() -> None:
    text = "# Top\n\n```\n# comment\n```\n\n## Sub\nbody"
    assert [(level, title) for level, title, _ in markdown_sections(text)] == [
        (0, ""),
        (1, "Top"),
        (2, "Sub"),
    ]


def test_chunks_never_mix_pages_and_carry_the_location() -> None:
    doc = DocumentBuilder()
    doc.container(page=1)
    doc.block("Alpha page text.")
    doc.container(page=2)
    doc.block("Beta page text.")
    built = doc.build(MediaType.PDF, pages=2)
    chunks = chunk_file(built, "file:report.pdf")
    assert [c.content for c in chunks] == ["Alpha page text.", "Beta page text."]
    assert [c.metadata for c in chunks] == [
        {"media_type": "application/pdf", "page": 1},
        {"media_type": "application/pdf", "page": 2},
    ]
    assert all(built.text[c.start : c.end] == c.content for c in chunks)
    assert chunks == chunk_file(built, "file:report.pdf")  # ids are stable
    assert chunks[0].id != chunk_file(built, "file:other.pdf")[0].id


def test_a_long_section_is_split_but_every_chunk_keeps_its_section() -> None:
    doc = DocumentBuilder()
    doc.container(sheet="Sales")
    doc.heading(2, "Sales")
    for n in range(40):
        doc.block(f"Row {n} of the sales sheet has some words in it to fill space.")
    chunks = chunk_file(doc.build(MediaType.XLSX), "file:s.xlsx", limit=300)
    assert len(chunks) > 5
    assert all(len(c.content) <= 300 for c in chunks)
    assert {c.metadata["sheet"] for c in chunks} == {"Sales"}
    assert {tuple(c.metadata["section_path"]) for c in chunks} == {("Sales",)}


def test_archive_rules_check_declared_sizes_and_ratio() -> None:
    limits = FileLimits(max_uncompressed_bytes=10 * MB, max_ratio=50)
    # Small entries may compress at any ratio (an XML file of spaces).
    check_archive([ArchiveEntry("small.xml", 10, 900_000)], limits)
    with pytest.raises(ZipBombError, match="inflates 200x"):
        check_archive([ArchiveEntry("big.xml", 10_000, 2_000_000)], limits)
    with pytest.raises(ZipBombError, match="uncompressed") as refused:
        check_archive([ArchiveEntry(f"{n}.xml", MB, MB) for n in range(11)], limits)
    assert refused.value.field == "file"
    assert refused.value.code == "TOO_LARGE"


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        FileLimits(max_bytes=0)


class _ImageParser:
    """A parser returning one image with OCR text, and counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def parse(self, data: bytes, **_: object) -> ExtractedFile:
        self.calls += 1
        doc = DocumentBuilder()
        doc.container(slide=3)
        doc.block("Slide text")
        doc.images.append(FoundImage(b"png", "image/png", doc.location, "REVENUE 2024"))
        return doc.build(MediaType.PPTX, pages=3)


async def _extract(describer: ScriptedDescriber | None, data: bytes = b"x") -> ExtractedFile:
    return await extract_file(
        data, filename="deck.pptx", ocr=OcrMode.AUTO, limits=FileLimits(max_bytes=100),
        parser=_ImageParser(), describer=describer,
    )  # fmt: skip


async def test_without_a_vision_backend_the_ocr_text_alone_is_indexed_and_says_so() -> None:
    extracted = await _extract(None)
    assert OCR_ONLY in extracted.notes
    chunks = chunk_file(extracted, "file:deck.pptx")
    image_chunk = chunks[-1]
    assert "REVENUE 2024" in image_chunk.content
    assert OCR_ONLY in image_chunk.content
    assert image_chunk.metadata["note"] == OCR_ONLY
    assert image_chunk.metadata["origin"] == PartOrigin.OCR.value
    assert image_chunk.metadata["slide"] == 3


async def test_a_vision_backend_describes_each_image_at_its_location() -> None:
    describer = ScriptedDescriber("a bar chart of revenue")
    extracted = await _extract(describer)
    assert describer.calls == [(3, "image/png")]
    assert extracted.images[0].description == "a bar chart of revenue"
    chunk = chunk_file(extracted, "file:deck.pptx")[-1]
    assert chunk.content.startswith("Image: a bar chart of revenue")
    assert "REVENUE 2024" in chunk.content
    assert chunk.metadata["origin"] == "image"
    assert "note" not in chunk.metadata
    assert OCR_ONLY not in extracted.notes


async def test_a_transient_vision_failure_is_raised_for_a_retry() -> None:
    with pytest.raises(ModelCallError):
        await _extract(ScriptedDescriber(ModelCallError("busy", transient=True)))


async def test_a_permanent_vision_failure_falls_back_to_ocr_with_a_note() -> None:
    extracted = await _extract(ScriptedDescriber(ModelCallError("no such model", transient=False)))
    assert any("no such model" in note for note in extracted.notes)
    assert chunk_file(extracted, "file:deck.pptx")[-1].metadata["origin"] == "ocr"


async def test_the_size_is_refused_before_anything_is_parsed() -> None:
    parser = _ImageParser()
    with pytest.raises(FileTooLargeError, match="over the limit of 100") as refused:
        await extract_file(
            b"x" * 101, filename=None, ocr=OcrMode.AUTO, limits=FileLimits(max_bytes=100),
            parser=parser, describer=None,
        )  # fmt: skip
    assert parser.calls == 0
    assert refused.value.field == "file"
