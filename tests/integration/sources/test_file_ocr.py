"""OCR with Debian's tesseract: scanned PDF pages by mode, images, and describers."""

from __future__ import annotations

from kenning.domain.sources.files import FileLimits, OcrMode, chunk_file, extract_file
from kenning.storage.sources.files import LibraryFileParser, TesseractOcr
from tests.support import file_samples as samples

PARSER = LibraryFileParser()
SCANNED = samples.scanned_pdf(
    "This first page has a real text layer.", ["INVOICE NUMBER 4711", "TOTAL DUE 99 EUR"]
)


async def _pdf(ocr: OcrMode) -> list[tuple[str, dict[str, object]]]:
    extracted = await extract_file(
        SCANNED, filename="scan.pdf", ocr=ocr, limits=FileLimits(), parser=PARSER, describer=None
    )
    return [(c.content, c.metadata) for c in chunk_file(extracted, "file:scan.pdf")]


async def test_auto_reads_only_the_page_without_a_text_layer() -> None:
    (first, first_meta), (second, second_meta) = await _pdf(OcrMode.AUTO)
    assert first == "This first page has a real text layer." and "origin" not in first_meta
    assert "INVOICE NUMBER 4711" in second and "TOTAL DUE 99 EUR" in second
    assert (second_meta["page"], second_meta["origin"]) == (2, "ocr")


async def test_never_leaves_the_scanned_page_empty() -> None:
    chunks = await _pdf(OcrMode.NEVER)
    assert [meta["page"] for _, meta in chunks] == [1]


async def test_always_reads_every_page_by_ocr() -> None:
    chunks = await _pdf(OcrMode.ALWAYS)
    assert [meta.get("origin") for _, meta in chunks] == ["ocr", "ocr"]
    assert "first page" in chunks[0][0]


async def test_images_in_a_document_are_described_when_a_vision_backend_exists() -> None:
    describer = samples.ScriptedDescriber("a diagram of the billing flow")
    extracted = await extract_file(
        samples.sample_docx(with_image=True), filename="h.docx", ocr=OcrMode.AUTO,
        limits=FileLimits(), parser=PARSER, describer=describer,
    )  # fmt: skip
    assert [media for _, media in describer.calls] == ["image/png"]
    last = chunk_file(extracted, "file:h.docx")[-1]
    assert "a diagram of the billing flow" in last.content and "DIAGRAM SEVEN" in last.content


def test_the_tesseract_adapter_reads_words() -> None:
    assert TesseractOcr().read(samples.text_image(["KENNING READS THIS"])) == "KENNING READS THIS"
