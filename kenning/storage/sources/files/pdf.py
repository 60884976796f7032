"""PDF with pypdfium2: the text layer page by page; pages without one (AUTO) or every page
(ALWAYS) rendered at 300 dpi, or lower where the page would pass ``max_image_pixels`` (a
note says so), and read by tesseract within the file's OCR time. Each page is its own part.
The document's ``ModDate`` (else ``CreationDate``) is its ``observed_at``."""

from __future__ import annotations

import io

import pypdfium2 as pdfium

from kenning.domain.ingestion.source_times import pdf_date
from kenning.domain.sources.files.document import DocumentBuilder
from kenning.domain.sources.files.errors import CorruptFileError, EncryptedFileError
from kenning.domain.sources.files.extracted import ExtractedFile, MediaType, OcrMode, PartOrigin
from kenning.domain.sources.files.limits import FileLimits, check_pages, render_dpi
from kenning.storage.sources.files.context import ReadContext

# A page whose text layer has fewer characters than this is treated as scanned (AUTO).
MIN_TEXT_CHARS = 16
OCR_DPI = 300
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD


def read_pdf(data: bytes, context: ReadContext) -> ExtractedFile:
    """The PDF's pages as parts (``page`` 1-based), OCR where the mode says."""
    document = _open(data)
    try:
        check_pages(len(document), context.limits)
        builder = DocumentBuilder()
        ocr_pages = 0
        for index in range(len(document)):
            builder.container(page=index + 1)
            page = document[index]
            try:
                ocr_pages += _read_page(page, builder, context)
            finally:
                page.close()
        if ocr_pages:
            builder.notes.append(f"{ocr_pages} page(s) read by OCR")
        metadata = document.get_metadata_dict(skip_empty=True)
        when = pdf_date(metadata.get("ModDate"), "PDF ModDate") or pdf_date(
            metadata.get("CreationDate"), "PDF CreationDate"
        )
        return builder.build(
            MediaType.PDF, title=metadata.get("Title"), pages=len(document), observed_at=when
        )
    finally:
        document.close()


def page_text(page: pdfium.PdfPage) -> str:
    """The text layer of one page, line ends normalised."""
    textpage = page.get_textpage()
    try:
        return str(textpage.get_text_range()).replace("\r\n", "\n").replace("\r", "\n")
    finally:
        textpage.close()


def render_png(page: pdfium.PdfPage, dpi: float = OCR_DPI) -> bytes:
    """The page as a grayscale PNG at ``dpi`` (see ``limits.render_dpi``)."""
    bitmap = page.render(scale=dpi / 72, grayscale=True)
    try:
        image = bitmap.to_pil()
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()
    finally:
        bitmap.close()


def _open(data: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        if getattr(error, "err_code", None) == _PASSWORD_ERROR:
            raise EncryptedFileError("the PDF is protected by a password") from None
        raise CorruptFileError(f"the PDF cannot be read: {error}") from None


def _read_page(page: pdfium.PdfPage, builder: DocumentBuilder, context: ReadContext) -> int:
    text = page_text(page).strip()
    mode = context.ocr_mode
    scanned = len(text) < MIN_TEXT_CHARS
    if mode is OcrMode.ALWAYS or (mode is OcrMode.AUTO and scanned):
        dpi = page_dpi(page, context.limits)
        if dpi < OCR_DPI:
            builder.notes.append(
                f"page {builder.location.page} rendered for OCR at {dpi:.0f} dpi "
                f"to stay within {context.limits.max_image_pixels} pixels"
            )
        recognised = context.recognise(lambda: render_png(page, dpi))
        if recognised.strip():
            builder.block(recognised, origin=PartOrigin.OCR)
            return 1
    builder.block(text)
    return 0


def page_dpi(page: pdfium.PdfPage, limits: FileLimits) -> float:
    """The dpi at which ``page`` renders within ``max_image_pixels``, at most ``OCR_DPI``."""
    width, height = page.get_size()
    return render_dpi(width, height, OCR_DPI, limits)
