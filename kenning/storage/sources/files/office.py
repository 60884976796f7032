"""DOCX, PPTX and XLSX with python-docx, python-pptx and openpyxl, each opened only after
its ZIP container passed the size checks (``archive.open_zip``). Headings become the
section path, slides and sheets their own parts, tables Markdown tables. The core
properties' ``modified`` (else ``created``) time is the file's ``observed_at``."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from typing import Any

import docx
import openpyxl
import pptx
from docx.table import Table as DocxTable
from pptx.enum.shapes import MSO_SHAPE_TYPE

from kenning.domain.ingestion.source_times import first_time
from kenning.domain.sources.files.document import DocumentBuilder
from kenning.domain.sources.files.errors import CorruptFileError, FileRejectedError
from kenning.domain.sources.files.extracted import (
    ExtractedFile,
    FoundImage,
    Location,
    MediaType,
)
from kenning.domain.sources.files.limits import check_pages
from kenning.domain.sources.files.sheet_cells import CellBudget, bounded_rows
from kenning.storage.sources.files.archive import open_zip
from kenning.storage.sources.files.context import ReadContext
from kenning.storage.sources.files.image import check_image

logger = logging.getLogger("kenning.sources.files")
_HEADING_STYLE = re.compile(r"^Heading (\d)$")
_IMAGE_TYPES = {"image/png": "image/png", "image/jpeg": "image/jpeg"}


def read_docx(data: bytes, context: ReadContext) -> ExtractedFile:
    """Paragraphs and tables in document order; ``Heading N`` styles open sections."""
    document = _opened(data, context, docx.Document)
    builder = DocumentBuilder()
    for item in document.iter_inner_content():
        if isinstance(item, DocxTable):
            builder.table([[cell.text for cell in row.cells] for row in item.rows])
            continue
        style = item.style.name if item.style is not None else ""
        level = 1 if style == "Title" else _heading_level(style)
        if level:
            builder.heading(level, item.text)
        elif style.startswith("List"):
            builder.block(f"- {item.text}")
        else:
            builder.block(item.text)
    for part in document.part.related_parts.values():
        media_type = _IMAGE_TYPES.get(part.content_type)
        if media_type:
            _found_image(builder, part.blob, media_type, Location(), context)
    core = document.core_properties
    when = first_time(core.modified, core.created)
    return builder.build(MediaType.DOCX, title=core.title, observed_at=when)


def read_pptx(data: bytes, context: ReadContext) -> ExtractedFile:
    """One part per slide (``slide`` 1-based, its title as the section path)."""
    deck = _opened(data, context, pptx.Presentation)
    slides = list(deck.slides)
    check_pages(len(slides), context.limits, "slides")
    builder = DocumentBuilder()
    for number, slide in enumerate(slides, start=1):
        builder.container(slide=number)
        title_shape = slide.shapes.title
        title_id = title_shape.shape_id if title_shape is not None else None
        if title_shape is not None and title_shape.text_frame.text.strip():
            builder.heading(2, title_shape.text_frame.text)
        for shape in slide.shapes:
            if shape.shape_id == title_id:
                continue
            _read_shape(shape, builder, context)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                builder.block(f"Notes: {notes.text}")
    core = deck.core_properties
    when = first_time(core.modified, core.created)
    return builder.build(MediaType.PPTX, title=core.title, pages=len(slides), observed_at=when)


def read_xlsx(data: bytes, context: ReadContext) -> ExtractedFile:
    """One part per sheet (``sheet`` its name): its used cells as a Markdown table, read
    within ``max_cells`` (a sheet declaring more is refused before a row is read); a sheet
    with no value in any cell adds nothing."""
    workbook = _opened(data, context, _load_workbook)
    try:
        check_pages(len(workbook.sheetnames), context.limits, "sheets")
        builder = DocumentBuilder()
        cells = CellBudget.of(context.limits)
        for sheet in workbook.worksheets:
            cells.declare(sheet.title, sheet.max_row, sheet.max_column)
            rows = bounded_rows(sheet.title, sheet.iter_rows(values_only=True), cells)
            if rows:  # a sheet of padding alone is no chunk, not even its title
                builder.container(sheet=sheet.title)
                builder.heading(2, sheet.title)
                builder.table(rows)
        core, pages = workbook.properties, len(workbook.sheetnames)
        when = first_time(core.modified, core.created)
        return builder.build(MediaType.XLSX, title=core.title, pages=pages, observed_at=when)
    finally:
        workbook.close()


def _load_workbook(stream: io.BytesIO) -> Any:
    return openpyxl.load_workbook(stream, read_only=True, data_only=True)


def _opened(data: bytes, context: ReadContext, opener: Callable[[io.BytesIO], Any]) -> Any:
    open_zip(data, context.limits).close()
    try:
        return opener(io.BytesIO(data))
    except FileRejectedError:
        raise
    except Exception as error:  # zipfile, lxml and the libraries raise many kinds
        raise CorruptFileError(f"the Office file cannot be read: {error}") from None


def _heading_level(style: str) -> int:
    match = _HEADING_STYLE.match(style)
    return int(match.group(1)) if match else 0


def _read_shape(shape: Any, builder: DocumentBuilder, context: ReadContext) -> None:
    try:
        _read_known_shape(shape, builder, context)
    except NotImplementedError as error:
        # python-pptx raises it for a shape it cannot classify (a p:sp with no geometry
        # that is no text box): that shape is lost, not the whole file.
        _skipped(shape, builder, str(error))


def _skipped(shape: Any, builder: DocumentBuilder, reason: str) -> None:
    slide, shape_id = builder.location.slide, shape.shape_id
    # The name is the file's text (it may hold anything): it goes to the note, which the
    # secret policy checks with the rest of the file, and never to the log.
    builder.notes.append(
        f"shape {shape_id} ({shape.name!r}) on slide {slide} was skipped: it cannot be read "
        f"({reason})"
    )
    logger.warning(
        "files.shape.skipped", extra={"slide": slide, "shape_id": shape_id, "reason": reason}
    )


def _read_known_shape(shape: Any, builder: DocumentBuilder, context: ReadContext) -> None:
    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        for inner in shape.shapes:
            _read_shape(inner, builder, context)
    elif getattr(shape, "has_table", False):
        builder.table([[cell.text for cell in row.cells] for row in shape.table.rows])
    elif shape.shape_type == MSO_SHAPE_TYPE.PICTURE:
        image = shape.image
        media_type = _IMAGE_TYPES.get(image.content_type)
        if media_type:
            _found_image(builder, image.blob, media_type, builder.location, context)
    elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        for paragraph in shape.text_frame.paragraphs:
            text = "".join(run.text for run in paragraph.runs)
            builder.block(f"- {text}" if paragraph.level else text)


def _found_image(
    builder: DocumentBuilder, data: bytes, media_type: str, where: Location, context: ReadContext
) -> None:
    if len(builder.images) >= context.limits.max_images:
        builder.notes.append(f"only the first {context.limits.max_images} images were read")
        return
    try:
        check_image(data, context)  # over the pixel limit: the whole file is refused
    except CorruptFileError as error:
        builder.notes.append(f"an embedded image was skipped: {error.message}")
        return
    text = context.recognise(data)
    builder.images.append(FoundImage(data, media_type, where, text))
