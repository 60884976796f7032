"""What every format reader gets: the OCR mode and engine, the limits, and a way to
extract a nested file (an e-mail's attachment) one level deeper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kenning.domain.sources.files.extracted import ExtractedFile, OcrMode
from kenning.domain.sources.files.limits import FileLimits
from kenning.storage.sources.files.ocr import TesseractOcr

# (data, filename, declared type, depth) -> the nested file extracted
NestedParse = Callable[[bytes, str | None, str | None, int], ExtractedFile]


@dataclass(frozen=True, slots=True)
class ReadContext:
    ocr_mode: OcrMode
    limits: FileLimits
    ocr: TesseractOcr
    nested: NestedParse
    depth: int = 0

    def recognise(self, image: bytes) -> str:
        """OCR text of ``image``, or "" when OCR is off."""
        if self.ocr_mode is OcrMode.NEVER:
            return ""
        return self.ocr.read(image)
