"""``extract_file``: the one entry point. The size is checked first, the parser runs off
the event loop, then each image found (or the image the file is) is described by the
vision model when there is one, else indexed by its OCR text alone with a note saying so.
An image is sent to the vision model only after its OCR text passed the secret check: one
whose text holds a credential never reaches a model, whatever the policy (a note says why;
the policy then refuses or redacts that text like any other).

Example::

    extracted = await extract_file(
        data, filename="report.pdf", ocr=OcrMode.AUTO, limits=FileLimits(),
        parser=LibraryFileParser(), describer=None,
    )
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from kenning.domain.ingestion.secrets.scan import scan
from kenning.domain.models.ports import ModelCallError
from kenning.domain.off_loop import OFF_LOOP_CHARS, off_loop
from kenning.domain.sources.files.document import SEPARATOR
from kenning.domain.sources.files.extracted import (
    ExtractedFile,
    FoundImage,
    OcrMode,
    Part,
    PartOrigin,
)
from kenning.domain.sources.files.limits import FileLimits, check_size
from kenning.domain.sources.files.ports import FileParser, ImageDescriber

OCR_ONLY = "OCR only: no vision backend"
NOT_SENT = "an image was not described: its text holds a credential, so it was sent to no model"


async def extract_file(
    data: bytes,
    *,
    filename: str | None,
    ocr: OcrMode,
    limits: FileLimits,
    parser: FileParser,
    describer: ImageDescriber | None,
    declared_type: str | None = None,
) -> ExtractedFile:
    """The file's Markdown text with located parts, images described, attachments extracted."""
    check_size(len(data), limits)

    def parse() -> ExtractedFile:
        return parser.parse(
            data, filename=filename, declared_type=declared_type, ocr=ocr, limits=limits
        )

    # Parsing and OCR take long even for small files: always leave the loop.
    extracted = await off_loop(max(len(data), OFF_LOOP_CHARS), parse)
    return await with_images(extracted, describer)


async def with_images(extracted: ExtractedFile, describer: ImageDescriber | None) -> ExtractedFile:
    """``extracted`` with one part per image appended (and the same for its attachments)."""
    images: list[FoundImage] = []
    notes = list(extracted.notes)
    for image in extracted.images:
        described = await _described(image, describer, notes)
        images.append(described)
    text, parts = extracted.text, list(extracted.parts)
    for image in images:
        text, part = _appended(text, image, describer is not None)
        if part is not None:
            parts.append(part)
    if images and describer is None:
        notes.append(OCR_ONLY)
    attachments = [
        replace(attachment, file=await with_images(attachment.file, describer))
        for attachment in extracted.attachments
    ]
    return replace(
        extracted,
        text=text,
        parts=tuple(parts),
        images=tuple(images),
        attachments=tuple(attachments),
        notes=tuple(dict.fromkeys(notes)),
    )


async def _described(
    image: FoundImage, describer: ImageDescriber | None, notes: list[str]
) -> FoundImage:
    if describer is None:
        return image
    text = image.ocr_text
    findings = await off_loop(len(text), partial(scan, text)) if text.strip() else []
    if findings:
        notes.append(NOT_SENT)
        return image
    try:
        description = (await describer.describe(image.data, image.media_type)).strip()
    except ModelCallError as error:
        if error.transient:
            raise  # the job is retried later, with the backend back
        notes.append(f"an image was not described ({error.message}): OCR text only")
        return image
    return replace(image, description=description or None)


def _appended(text: str, image: FoundImage, vision: bool) -> tuple[str, Part | None]:
    ocr_text = image.ocr_text.strip()
    if image.description:
        body = f"Image: {image.description}"
        if ocr_text:
            body += f"\n\nText in the image:\n{ocr_text}"
        origin, note = PartOrigin.IMAGE, None
    elif ocr_text:
        reason = OCR_ONLY if not vision else "OCR only: the image was not described"
        body = f"Text in the image ({reason}):\n{ocr_text}"
        origin, note = PartOrigin.OCR, reason
    else:
        return text, None
    prefix = text + SEPARATOR if text else ""
    start = len(prefix)
    return prefix + body, Part(start, start + len(body), image.location, origin, note)
