"""The ``ingest_file`` tool: a file given as base64, checked, kept and queued exactly as
GraphQL's ``ingestFile`` (``resolvers/sources/files.py``) does, through the same use case
(``kenning.domain.sources.files.file_upload.ingest_file``)."""

from __future__ import annotations

import base64
import binascii
from functools import partial
from typing import Any

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.priorities import FILE_PRIORITY
from kenning.domain.sources.files.errors import FileRejectedError, FileTooLargeError
from kenning.domain.sources.files.extracted import OcrMode
from kenning.domain.sources.files.file_job import FileOptions, QueuedFile
from kenning.domain.sources.files.file_upload import FileUpload, ingest_file
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    time_argument,
    to_scope,
)
from kenning.mcp.file_arguments import (
    Content,
    Filename,
    Kind,
    ObservedAt,
    Ocr,
    Priority,
    SourceUrn,
    Tags,
    Through,
)
from kenning.mcp.tool_spec import ToolSpec


def decoded(content: str, max_bytes: int) -> bytes:
    """The bytes of base64 ``content``, refused before decoding when they would pass
    ``max_bytes``."""
    if len(content) > (max_bytes // 3 + 1) * 4 + 4:
        raise FileTooLargeError(f"the file is over the limit of {max_bytes} bytes")
    try:
        data = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError("content must be base64", field="content") from None
    if len(data) > max_bytes:
        raise FileTooLargeError(f"the file has {len(data)} bytes, over the limit of {max_bytes}")
    return data


async def decoded_within(content: str, max_bytes: int) -> bytes:
    """``decoded``, as the upload reader ``ingest_file`` calls with the limit."""
    return decoded(content, max_bytes)


def named(error: FileRejectedError | FileTooLargeError) -> ValidationError:
    """The error with its problem in the message: an agent reads one line, where GraphQL
    has ``FileRejected.problem`` (the code stays: TOO_LARGE or INVALID)."""
    text = f"{error.problem.value}: {error.message}"
    if isinstance(error, FileTooLargeError):
        return TooLargeError(text, field=error.field)
    return ValidationError(text, field=error.field)


@domain_errors
async def ingest_file_tool(
    ctx: ToolContext,
    content: Content,
    filename: Filename,
    source_urn: SourceUrn = None,
    kind: Kind = "file",
    tags: Tags = None,
    ocr: Ocr = OcrMode.AUTO,
    priority: Priority = FILE_PRIORITY,
    scope: NarrowScope = None,
    observed_at: ObservedAt = None,
    connection_id: Through = None,
) -> dict[str, Any]:
    """Queue a file's ingestion; answers the job and the stored original."""
    who = caller(ctx)
    observed = time_argument(observed_at, "observed_at")
    given = (source_urn, kind, tuple(tags or ()), ocr, priority, observed, connection_id)
    options = FileOptions(*given)
    asked = FileUpload(filename, options, to_scope(scope))
    read = partial(decoded_within, content)
    try:
        queued = await ingest_file(who.scoped, asked, read, who.runtime.file_ports())
    except (FileRejectedError, FileTooLargeError) as error:
        raise named(error) from None
    return _queued(queued)


def _queued(queued: QueuedFile) -> dict[str, Any]:
    stored = queued.file
    return {
        "jobId": queued.queued.job_id,
        "status": queued.queued.status.value,
        "file": {
            "id": stored.id,
            "filename": stored.filename,
            "mediaType": stored.media_type,
            "size": stored.size,
            "sourceUrn": stored.source_urn,
            "downloadUrl": f"/files/{stored.id}",
        },
    }


TOOLS = (
    ToolSpec(
        "ingest_file",
        ingest_file_tool,
        "Queue a file (PDF, DOCX, PPTX, XLSX, HTML, Markdown, text, e-mail, PNG/JPEG) for the "
        "knowledge base: give its bytes as base64 and its filename. Its type is read from the "
        "content; text, tables, pages and sections are kept, images read by OCR. Answers a "
        "job id (follow it with the job status) and the stored file. A bad file is refused "
        "with its problem (UNSUPPORTED_TYPE, CORRUPT, ENCRYPTED, TOO_LARGE, ZIP_BOMB).",
        read_only=False,
    ),
)
