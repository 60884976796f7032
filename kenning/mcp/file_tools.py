"""The ``ingest_file`` tool: a file given as base64, checked, kept and queued exactly as
GraphQL's ``ingestFile`` does (``kenning.domain.sources.files.file_job.request_file``)."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any

from pydantic import Field

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.priorities import FILE_PRIORITY
from kenning.domain.sources.files.errors import FileRejectedError, FileTooLargeError
from kenning.domain.sources.files.extracted import OcrMode
from kenning.domain.sources.files.file_job import FileOptions, request_file
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    stored_write_scope,
    time_argument,
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
    content: Annotated[str, Field(description="The file's bytes, base64-encoded.")],
    filename: Annotated[str, Field(description="Its name, e.g. 'report.pdf'.")],
    source_urn: Annotated[str | None, Field(description="Defaults to 'file:<filename>'.")] = None,
    kind: Annotated[str, Field(description="The chunks' kind.")] = "file",
    tags: Annotated[list[str] | None, Field(description="Tags of every chunk.")] = None,
    ocr: Annotated[OcrMode, Field(description="AUTO, ALWAYS or NEVER.")] = OcrMode.AUTO,
    priority: Annotated[int, Field(description="Queue priority 0..9.")] = FILE_PRIORITY,
    scope: NarrowScope = None,
    observed_at: Annotated[
        str | None,
        Field(
            description="When the file's content was true (ISO 8601 with a time zone); "
            "default: the file's own date (e-mail Date, PDF/Office dates), else now."
        ),
    ] = None,
) -> dict[str, Any]:
    """Queue a file's ingestion; answers the job and the stored original."""
    who = caller(ctx)
    runtime = who.runtime
    work = runtime.file_work
    writer = await stored_write_scope(who, scope)
    data = decoded(content, work.limits.max_bytes)
    observed = time_argument(observed_at, "observed_at")
    options = FileOptions(source_urn, kind, tuple(tags or ()), ocr, priority, observed)
    try:
        queued = await request_file(
            data, filename, options, writer,
            limits=work.limits, detect=work.detect, files=work.files, queue=runtime.queue.jobs,
        )  # fmt: skip
    except (FileRejectedError, FileTooLargeError) as error:
        raise named(error) from None
    stored = queued.file
    return {
        "jobId": queued.queued.job_id,
        "status": queued.queued.status.value,
        "file": {"id": stored.id, "filename": stored.filename, "mediaType": stored.media_type,
                 "size": stored.size, "sourceUrn": stored.source_urn,
                 "downloadUrl": f"/files/{stored.id}"},
    }  # fmt: skip


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
