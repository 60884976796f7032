"""OCR with Debian's ``tesseract`` CLI: the image on stdin, the text on stdout, a timeout.

Example: ``TesseractOcr().read(png_bytes)`` -> ``"Invoice 42 ..."``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from kenning.domain.errors import ConfigurationError
from kenning.domain.sources.files.errors import CorruptFileError, FileTooLargeError


@dataclass(frozen=True, slots=True)
class TesseractOcr:
    """Runs ``tesseract stdin stdout -l <language>`` once per image."""

    language: str = "eng"
    timeout_s: float = 120.0
    command: str = "tesseract"

    def read(self, image: bytes, *, timeout_s: float | None = None) -> str:
        """The text tesseract recognises in ``image`` (PNG, JPEG, TIFF...), within
        ``timeout_s`` (default: ``self.timeout_s``)."""
        timeout = self.timeout_s if timeout_s is None else timeout_s
        executable = shutil.which(self.command)
        if executable is None:
            raise ConfigurationError(
                f"OCR needs {self.command!r}: install tesseract-ocr (scripts/debian_packages.sh)"
            )
        try:
            done = subprocess.run(
                [executable, "stdin", "stdout", "-l", self.language],
                input=image,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise FileTooLargeError(
                f"OCR of one image took longer than the limit of {timeout:.0f} s"
            ) from None
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
            raise CorruptFileError(f"OCR failed: {reason[-1] if reason else done.returncode}")
        return done.stdout.decode("utf-8", errors="replace").strip()
