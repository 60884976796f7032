"""Types of files: the ``ingestFile`` mutation's input and result, the stored original
(``storedFile``) and why a file was refused (``FileRejected``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.sources.files.errors import FileProblem, FileRejectedError, FileTooLargeError
from kenning.domain.sources.files.extracted import OcrMode
from kenning.domain.sources.files.stored import NotKeptReason
from kenning.schema.access.scope import ScopeInfo, ScopeInput
from kenning.schema.errors import Error, ScopeError, SensitiveContentError, ValidationError
from kenning.schema.queue.types import ConnectionRevokedError, IngestionHandle

strawberry.enum(
    FileProblem,
    description="Why a file was refused: UNSUPPORTED_TYPE (from its content, not its name), "
    "CORRUPT, ENCRYPTED, TOO_LARGE (KENNING_MAX_FILE_BYTES, pages, pixels), ZIP_BOMB.",
)
strawberry.enum(
    OcrMode,
    name="OcrMode",
    description="When OCR reads PDF pages: AUTO those without text, ALWAYS every page, NEVER "
    "none (images are read by OCR unless NEVER).",
)

strawberry.enum(
    NotKeptReason,
    name="FileNotKeptReason",
    description="Why a file's original is not kept although its chunks are: CREDENTIALS "
    "(its extracted text held a credential; its chunks are stored redacted), ERASED (it "
    "named a subject that eraseSubject removed).",
)


@strawberry.input(description="What ingestFile does with the file; every field is optional.")
class IngestFileInput:
    source_urn: str | None = strawberry.field(
        default=None, description="Defaults to `file:<filename>`."
    )
    kind: str | None = strawberry.field(default=None, description='Defaults to "file".')
    tags: list[str] = strawberry.field(default_factory=list, description="Tags of every chunk.")
    ocr: OcrMode = strawberry.field(default=OcrMode.AUTO, description="When to run OCR.")
    priority: int | None = strawberry.field(
        default=None, description="Queue priority 0..9; defaults to 3 (the bulk lane)."
    )
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )
    observed_at: datetime | None = strawberry.field(
        default=None,
        description="When the file's content was true (with a time zone; between 1900 and a "
        "day from now). Defaults to the file's own date (an e-mail's Date, a PDF's ModDate or "
        "CreationDate, an Office file's modified or created), else the time it is stored.",
    )
    connection_id: str | None = strawberry.field(
        default=None,
        description="The registered connection it comes through: what it stores carries it, "
        "and revoking the connection cancels its job and purges what it stored.",
    )


@strawberry.type(description="A file that cannot be ingested; nothing of it was stored.")
class FileRejected(Error):
    problem: FileProblem
    detected: str | None = strawberry.field(
        description="What the content looks like, for UNSUPPORTED_TYPE."
    )


@strawberry.type(
    description="A stored original, downloadable by whoever may read its chunks unless it "
    "was not kept (`kept` false, `notKeptReason` why; the download then answers 410 Gone)."
)
class StoredFile:
    id: strawberry.ID
    source_urn: str
    filename: str
    media_type: str = strawberry.field(description="Detected from the content.")
    size: int = strawberry.field(description="Bytes.")
    sha256: str
    created_at: datetime
    scope: ScopeInfo
    download_url: str = strawberry.field(
        description="`/files/<id>` on this server: GET it with the same API key header."
    )
    kept: bool = strawberry.field(
        default=True, description="False once the original's bytes were dropped on purpose."
    )
    not_kept_reason: NotKeptReason | None = strawberry.field(
        default=None, description="Why the original was not kept; null while it is."
    )
    not_kept_message: str | None = strawberry.field(
        default=None, description="The reason in words, for people."
    )


@strawberry.type(description="The file is stored and its job queued (or already done).")
class IngestFileSuccess:
    job: IngestionHandle
    file: StoredFile


IngestFileResult = Annotated[
    IngestFileSuccess
    | FileRejected
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | ConnectionRevokedError,
    strawberry.union("IngestFileResult"),
]


def file_rejected(error: FileRejectedError | FileTooLargeError) -> FileRejected:
    """The member of a refused file (``resolvers.errors.MEMBERS`` maps both trees to it)."""
    return FileRejected(
        code=error.code,
        message=error.message,
        field=error.field,
        problem=error.problem,
        detected=getattr(error, "detected", None),
    )
