"""Chunks by structure: each part of an extracted file is chunked on its own (paragraphs
packed up to the limit, as ``kenning.domain.ingestion.chunking`` does), so a chunk never
spans two pages, sheets, slides or sections, and its metadata says where it is.

Example: ``chunk_file(extracted, "file:report.pdf")[0].metadata == {"page": 1, ...}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kenning.domain.ingestion.chunking import DEFAULT_LIMIT, chunk, chunk_id
from kenning.domain.sources.files.extracted import ExtractedFile, Part, PartOrigin


@dataclass(frozen=True, slots=True)
class FileChunk:
    """A chunk of an extracted file: ``content == extracted.text[start:end]``."""

    id: str
    ordinal: int
    content: str
    start: int
    end: int
    metadata: dict[str, Any] = field(default_factory=dict)


def chunk_file(
    extracted: ExtractedFile, source_urn: str, *, limit: int = DEFAULT_LIMIT
) -> list[FileChunk]:
    """The chunks of ``extracted``, in order, each inside one part; [] when it has no text."""
    chunks: list[FileChunk] = []
    for part in _merged(extracted.parts):
        text = extracted.part_text(part)
        if not text.strip():
            continue
        for piece in chunk(text, source_urn, limit=limit):
            ordinal = len(chunks)
            chunks.append(
                FileChunk(
                    id=chunk_id(source_urn, ordinal, piece.content),
                    ordinal=ordinal,
                    content=piece.content,
                    start=part.start + piece.start,
                    end=part.start + piece.end,
                    metadata=part_metadata(extracted, part),
                )
            )
    return chunks


def part_metadata(extracted: ExtractedFile, part: Part) -> dict[str, Any]:
    """Chunk metadata of a part: media type, location, origin, and any note."""
    metadata: dict[str, Any] = {"media_type": extracted.media_type.value}
    metadata.update(part.location.metadata())
    if part.origin is not PartOrigin.TEXT:
        metadata["origin"] = part.origin.value
    if part.note:
        metadata["note"] = part.note
    return metadata


def _merged(parts: tuple[Part, ...]) -> list[Part]:
    """Adjacent parts of one location and origin as one (the builder already merges; the
    parts appended for images may follow text of the same page)."""
    merged: list[Part] = []
    for part in parts:
        last = merged[-1] if merged else None
        if last is not None and (last.location, last.origin, last.note) == (
            part.location,
            part.origin,
            part.note,
        ):
            merged[-1] = Part(last.start, part.end, last.location, last.origin, last.note)
        else:
            merged.append(part)
    return merged
