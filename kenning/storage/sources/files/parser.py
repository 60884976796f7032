"""``LibraryFileParser``: the ``FileParser`` port over kept, offline libraries — pypdfium2
(PDF text layer and page rendering), python-docx, python-pptx, openpyxl, trafilatura (HTML
main content as Markdown), the standard ``email`` package, Pillow and Debian's tesseract.
None of them fetches models or data at run time."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kenning.domain.sources.files.extracted import ExtractedFile, MediaType, OcrMode
from kenning.domain.sources.files.limits import FileLimits, check_size
from kenning.storage.sources.files.context import OcrBudget, ReadContext
from kenning.storage.sources.files.detect import detect
from kenning.storage.sources.files.image import read_image
from kenning.storage.sources.files.mail import read_email
from kenning.storage.sources.files.ocr import TesseractOcr
from kenning.storage.sources.files.office import read_docx, read_pptx, read_xlsx
from kenning.storage.sources.files.pdf import read_pdf
from kenning.storage.sources.files.web_text import read_html, read_markdown, read_text

Reader = Callable[[bytes, ReadContext], ExtractedFile]

_READERS: dict[MediaType, Reader] = {
    MediaType.PDF: read_pdf,
    MediaType.DOCX: read_docx,
    MediaType.PPTX: read_pptx,
    MediaType.XLSX: read_xlsx,
    MediaType.HTML: read_html,
    MediaType.MARKDOWN: read_markdown,
    MediaType.TEXT: read_text,
    MediaType.EMAIL: read_email,
    MediaType.PNG: lambda data, context: read_image(data, MediaType.PNG, context),
    MediaType.JPEG: lambda data, context: read_image(data, MediaType.JPEG, context),
}


@dataclass(frozen=True, slots=True)
class LibraryFileParser:
    """Detects the type from content and extracts it. Blocking (OCR runs a subprocess).
    OCR time is measured with ``clock`` against ``FileLimits.max_ocr_seconds``."""

    ocr_engine: TesseractOcr = field(default_factory=TesseractOcr)
    clock: Callable[[], float] = time.monotonic

    def parse(
        self,
        data: bytes,
        *,
        filename: str | None,
        declared_type: str | None,
        ocr: OcrMode,
        limits: FileLimits,
    ) -> ExtractedFile:
        budget = OcrBudget(limits.max_ocr_seconds, self.clock)  # shared with attachments

        def nested(
            inner: bytes, name: str | None, declared: str | None, depth: int
        ) -> ExtractedFile:
            context = ReadContext(ocr, limits, self.ocr_engine, nested, depth, budget)
            return self._parse(inner, name, declared, context)

        context = ReadContext(ocr, limits, self.ocr_engine, nested, 0, budget)
        file = self._parse(data, filename, declared_type, context)
        note = budget.note()
        return dataclasses.replace(file, notes=(*file.notes, note)) if note else file

    def _parse(
        self, data: bytes, filename: str | None, declared: str | None, context: ReadContext
    ) -> ExtractedFile:
        check_size(len(data), context.limits)
        media_type = detect(data, filename=filename, declared_type=declared, limits=context.limits)
        return _READERS[media_type](data, context)
