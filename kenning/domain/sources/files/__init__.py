"""Files: type detection from content, text and structure extraction, OCR.

A file (PDF, DOCX, PPTX, XLSX, HTML, Markdown, plain text, e-mail, PNG/JPEG) becomes one
``ExtractedFile``: Markdown text whose ``parts`` say where each piece sits (heading path,
PDF page, sheet, slide), with the images found, the e-mail's attachments and notes. The
formats, OCR and type detection live behind the ``FileParser`` port, in
``kenning.storage.sources.files``; vision models behind ``ImageDescriber``.

Read first: ``extract.py`` (the entry point), ``extracted.py`` (what it returns),
``errors.py`` (why a file is refused), ``chunks.py`` (chunks by structure). An upload
enters through ``file_upload.ingest_file`` (every face) and ``file_job.request_file``.
"""

from kenning.domain.sources.files.chunks import FileChunk, chunk_file
from kenning.domain.sources.files.document import DocumentBuilder, markdown_table
from kenning.domain.sources.files.errors import (
    CorruptFileError,
    EncryptedFileError,
    FileProblem,
    FileRejectedError,
    FileTooLargeError,
    UnsupportedFileError,
    ZipBombError,
)
from kenning.domain.sources.files.extract import OCR_ONLY, extract_file
from kenning.domain.sources.files.extracted import (
    Attachment,
    ExtractedFile,
    FoundImage,
    Location,
    MediaType,
    OcrMode,
    Part,
    PartOrigin,
)
from kenning.domain.sources.files.limits import ArchiveEntry, FileLimits, check_archive
from kenning.domain.sources.files.ports import FileParser, ImageDescriber

__all__ = [
    "OCR_ONLY",
    "ArchiveEntry",
    "Attachment",
    "CorruptFileError",
    "DocumentBuilder",
    "EncryptedFileError",
    "ExtractedFile",
    "FileChunk",
    "FileLimits",
    "FileParser",
    "FileProblem",
    "FileRejectedError",
    "FileTooLargeError",
    "FoundImage",
    "ImageDescriber",
    "Location",
    "MediaType",
    "OcrMode",
    "Part",
    "PartOrigin",
    "UnsupportedFileError",
    "ZipBombError",
    "check_archive",
    "chunk_file",
    "extract_file",
    "markdown_table",
]
