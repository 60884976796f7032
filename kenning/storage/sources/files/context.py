"""What every format reader gets: the OCR mode and engine, the limits, the file's OCR time
budget, and a way to extract a nested file (an e-mail's attachment) one level deeper."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kenning.domain.sources.files.errors import FileTooLargeError
from kenning.domain.sources.files.extracted import ExtractedFile, OcrMode
from kenning.domain.sources.files.limits import FileLimits
from kenning.storage.sources.files.ocr import TesseractOcr

# (data, filename, declared type, depth) -> the nested file extracted
NestedParse = Callable[[bytes, str | None, str | None, int], ExtractedFile]


@dataclass(slots=True)
class OcrBudget:
    """OCR seconds one file (with its attachments) may still spend: once spent, the pages
    and images left are not read by OCR and counted in ``skipped``; a run that would
    overdraw it is stopped at the budget (one tesseract timeout bounds a single image)."""

    seconds: float
    clock: Callable[[], float] = time.monotonic
    spent: float = 0.0
    skipped: int = 0

    @property
    def left(self) -> float:
        return self.seconds - self.spent

    def read(self, engine: TesseractOcr, image: bytes | Callable[[], bytes]) -> str | None:
        """``engine``'s text for ``image`` (bytes, or made only if there is time), or None."""
        if self.left <= 0:
            self.skipped += 1
            return None
        capped = self.left < engine.timeout_s
        start = self.clock()
        try:
            data = image() if callable(image) else image
            return engine.read(data, timeout_s=self.left if capped else None)
        except FileTooLargeError:
            if not capped:
                raise  # the engine's own limit for one image: the file is refused
            self.skipped += 1
            return None
        finally:
            self.spent += self.clock() - start

    def note(self) -> str | None:
        if not self.skipped:
            return None
        return (
            f"{self.skipped} page(s) or image(s) not read by OCR: the file's OCR time "
            f"budget of {self.seconds:g} s was spent"
        )


@dataclass(frozen=True, slots=True)
class ReadContext:
    ocr_mode: OcrMode
    limits: FileLimits
    ocr: TesseractOcr
    nested: NestedParse
    depth: int = 0
    budget: OcrBudget = field(default_factory=lambda: OcrBudget(FileLimits().max_ocr_seconds))

    def recognise(self, image: bytes | Callable[[], bytes]) -> str:
        """OCR text of ``image``, or "" when OCR is off or the file's OCR time is spent."""
        if self.ocr_mode is OcrMode.NEVER:
            return ""
        return self.budget.read(self.ocr, image) or ""
