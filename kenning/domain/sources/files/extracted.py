"""What extraction gives: Markdown text, its parts with locations, images, attachments."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class MediaType(StrEnum):
    """The formats Kenning reads, as detected from content."""

    PDF = "application/pdf"
    DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
    XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    HTML = "text/html"
    MARKDOWN = "text/markdown"
    TEXT = "text/plain"
    EMAIL = "message/rfc822"
    PNG = "image/png"
    JPEG = "image/jpeg"


class OcrMode(StrEnum):
    """When PDF pages are read by OCR: AUTO those without a text layer, ALWAYS every page,
    NEVER none (images are read by OCR unless NEVER)."""

    AUTO = "AUTO"
    ALWAYS = "ALWAYS"
    NEVER = "NEVER"


class PartOrigin(StrEnum):
    """Where a part's text came from."""

    TEXT = "text"  # the file's own text layer
    OCR = "ocr"  # recognised from pixels
    IMAGE = "image"  # a vision model's description of an image (with its OCR text)


@dataclass(frozen=True, slots=True)
class Location:
    """Where in the file: heading path, 1-based PDF page or slide number, sheet name."""

    section_path: tuple[str, ...] = ()
    page: int | None = None
    sheet: str | None = None
    slide: int | None = None

    def metadata(self) -> dict[str, object]:
        """The location as chunk metadata, only the keys that are set."""
        found: dict[str, object] = {}
        if self.section_path:
            found["section_path"] = list(self.section_path)
        for name in ("page", "sheet", "slide"):
            value = getattr(self, name)
            if value is not None:
                found[name] = value
        return found

    def container(self) -> tuple[int | None, str | None, int | None]:
        """The page, sheet and slide: text of two containers never shares a chunk."""
        return (self.page, self.sheet, self.slide)


@dataclass(frozen=True, slots=True)
class Part:
    """``text[start:end]`` of an ``ExtractedFile`` and where it sits in the file."""

    start: int
    end: int
    location: Location
    origin: PartOrigin = PartOrigin.TEXT
    note: str | None = None  # e.g. "OCR only: no vision backend"


@dataclass(frozen=True, slots=True)
class FoundImage:
    """An image of the file (or the file itself), its OCR text and, once described, what
    a vision model says it shows."""

    data: bytes = field(repr=False)
    media_type: str
    location: Location
    ocr_text: str = ""
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file attached to an e-mail, extracted on its own and linked to the message."""

    filename: str | None
    file: ExtractedFile


@dataclass(frozen=True, slots=True)
class ExtractedFile:
    """A file's text as Markdown, split into located parts (in order, not overlapping)."""

    media_type: MediaType
    text: str
    parts: tuple[Part, ...]
    title: str | None = None
    pages: int = 0  # PDF pages, slides or sheets; 0 when the format has none
    images: tuple[FoundImage, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    notes: tuple[str, ...] = ()
    # The file's own date (an e-mail's Date, a PDF's ModDate, an Office file's modified),
    # when it has a plausible one: its chunks' observedAt unless the writer gave one.
    observed_at: datetime | None = None

    def part_text(self, part: Part) -> str:
        """The text of one part."""
        return self.text[part.start : part.end]
