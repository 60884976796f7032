"""The ports extraction runs over: a file parser (formats, OCR: the storage adapters) and
an image describer (a vision model, reached through the router)."""

from __future__ import annotations

from typing import Protocol

from kenning.domain.sources.files.extracted import ExtractedFile, OcrMode
from kenning.domain.sources.files.limits import FileLimits


class FileParser(Protocol):
    """Detects a file's type from its content and extracts it. Blocking: call it off the
    event loop. Raises the errors of ``kenning.domain.sources.files.errors``."""

    def parse(
        self,
        data: bytes,
        *,
        filename: str | None,
        declared_type: str | None,
        ocr: OcrMode,
        limits: FileLimits,
    ) -> ExtractedFile: ...


class ImageDescriber(Protocol):
    """Says what an image shows (a vision model at the router's document priority)."""

    async def describe(self, image: bytes, media_type: str) -> str:
        """A short description; raises ``ModelCallError`` when the backend cannot answer."""
        ...
