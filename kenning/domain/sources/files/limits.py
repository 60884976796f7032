"""Size rules a file must pass, checked before it is parsed or inflated."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from kenning.domain.sources.files.errors import FileTooLargeError, ZipBombError
from kenning.domain.sources.html_limits import MAX_HTML_NODES

MB = 1024 * 1024
# Entries this small may compress at any ratio (an XML file of spaces) without harm.
RATIO_FLOOR_BYTES = 1 * MB


@dataclass(frozen=True, slots=True)
class FileLimits:
    """The bounds of one extraction (``KENNING_MAX_FILE_BYTES`` maps to ``max_bytes``)."""

    max_bytes: int = 100 * MB
    max_pages: int = 2_000  # PDF pages, slides, sheets
    max_uncompressed_bytes: int = 500 * MB  # the sum over a ZIP container's entries
    max_ratio: float = 100.0  # inflated / compressed, per entry over RATIO_FLOOR_BYTES
    max_image_pixels: int = 80_000_000
    max_images: int = 50  # images described or read by OCR per file
    max_attachment_depth: int = 2  # an attachment's attachment, and no deeper
    max_cells: int = 1_000_000  # spreadsheet cells read per file, empty padding included
    max_ocr_seconds: float = 300.0  # OCR time per file; pages and images past it are skipped
    # Chunks stored per file, its attachments included (KENNING_MAX_CHUNKS_PER_FILE). The
    # largest realistic files the other limits let through make about 10,000: 2,000 dense
    # PDF pages (~3,500 characters each), or a sheet of 1,000,000 short cells.
    max_chunks: int = 20_000
    # An HTML file, or an e-mail's HTML body or attachment, is parsed only within both (its
    # extraction costs ~2 KB a node and up to ~20 bytes a byte; KENNING_MAX_HTML_NODES maps
    # to max_html_nodes): the bytes are the crawl's default page cap, the same worst case
    # whichever way a page arrives.
    max_html_bytes: int = 5 * MB
    max_html_nodes: int = MAX_HTML_NODES

    def __post_init__(self) -> None:
        positive = ("max_bytes", "max_pages", "max_uncompressed_bytes", "max_image_pixels")
        html = ("max_html_bytes", "max_html_nodes")
        for name in (*positive, "max_cells", "max_ocr_seconds", "max_chunks", *html):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.max_ratio < 1:
            raise ValueError("max_ratio must be at least 1")


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """An entry of a ZIP container as its directory declares it."""

    name: str
    compressed: int
    uncompressed: int


def check_size(size: int, limits: FileLimits) -> None:
    """Refuse a file over ``max_bytes``."""
    if size > limits.max_bytes:
        raise FileTooLargeError(f"the file has {size} bytes, over the limit of {limits.max_bytes}")


def check_pages(pages: int, limits: FileLimits, what: str = "pages") -> None:
    """Refuse a file with more pages (slides, sheets) than ``max_pages``."""
    if pages > limits.max_pages:
        raise FileTooLargeError(
            f"the file has {pages} {what}, over the limit of {limits.max_pages}"
        )


def check_html_bytes(size: int, limits: FileLimits) -> None:
    """Refuse HTML over ``max_html_bytes`` before it is parsed."""
    if size > limits.max_html_bytes:
        raise FileTooLargeError(
            f"the HTML has {size} bytes, over the limit of {limits.max_html_bytes}"
        )


def check_chunks(chunks: int, limits: FileLimits) -> None:
    """Refuse a file whose text, attachments included, would be stored as more chunks than
    ``max_chunks`` (each is embedded and indexed: the cost of a file grows with them)."""
    if chunks > limits.max_chunks:
        raise FileTooLargeError(
            f"the file would be stored as more than {limits.max_chunks} chunks (attachments "
            "included), the limit per file"
        )


def check_pixels(width: int, height: int, limits: FileLimits) -> None:
    """Refuse an image larger than ``max_image_pixels`` before it is decoded."""
    if width * height > limits.max_image_pixels:
        raise FileTooLargeError(
            f"the image has {width}x{height} pixels, over the limit of {limits.max_image_pixels}"
        )


def render_dpi(width_pt: float, height_pt: float, dpi: float, limits: FileLimits) -> float:
    """The highest dpi up to ``dpi`` at which a page of ``width_pt`` x ``height_pt`` points
    renders within ``max_image_pixels`` (a 200-inch MediaBox must not become 3.6 GB).

    Example: ``render_dpi(612, 792, 300, FileLimits(max_image_pixels=1_000_000))`` -> ~113.
    """
    width_in, height_in = max(width_pt, 1.0) / 72, max(height_pt, 1.0) / 72
    budget = limits.max_image_pixels
    if _pixels(width_in, height_in, dpi) <= budget:
        return dpi
    fitted = math.sqrt(budget / (width_in * height_in))
    while fitted > 0 and _pixels(width_in, height_in, fitted) > budget:
        fitted *= 0.99  # rounding up to whole pixels can still overshoot
    return fitted


def _pixels(width_in: float, height_in: float, dpi: float) -> int:
    return math.ceil(width_in * dpi) * math.ceil(height_in * dpi)


def check_archive(entries: Iterable[ArchiveEntry], limits: FileLimits) -> None:
    """Refuse a ZIP container whose declared sizes would inflate past the limits."""
    total = 0
    for entry in entries:
        total += entry.uncompressed
        if total > limits.max_uncompressed_bytes:
            raise ZipBombError(
                f"the archive declares over {limits.max_uncompressed_bytes} bytes uncompressed"
            )
        if entry.uncompressed > RATIO_FLOOR_BYTES:
            ratio = entry.uncompressed / max(entry.compressed, 1)
            if ratio > limits.max_ratio:
                raise ZipBombError(
                    f"archive entry {entry.name!r} inflates {ratio:.0f}x, "
                    f"over the limit of {limits.max_ratio:.0f}x"
                )
