"""The ``ingestFile`` mutation (GraphQL multipart request spec) and the ``storedFile`` query.

The upload is read up to ``KENNING_MAX_FILE_BYTES`` and no further; its size and type (from
the content) are checked at once, then the original is kept and a "file" job queued
(``kenning.domain.sources.files.file_upload.ingest_file``, as MCP's ``ingest_file`` calls
it)."""

from __future__ import annotations

from functools import partial
from typing import Any

import strawberry
from strawberry.file_uploads import Upload

from kenning.domain.errors import ValidationError
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import FILE_PRIORITY
from kenning.domain.sources.files.errors import FileTooLargeError
from kenning.domain.sources.files.file_job import FileOptions, QueuedFile
from kenning.domain.sources.files.file_upload import FileUpload, ingest_file
from kenning.domain.sources.files.stored import NOT_KEPT_MESSAGES
from kenning.domain.sources.files.stored import StoredFile as DomainStoredFile
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, read_scope, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import scope_info
from kenning.schema.sources.files import (
    IngestFileInput,
    IngestFileResult,
    IngestFileSuccess,
    StoredFile,
)

READ_BYTES = 1024 * 1024
DOWNLOAD_PATH = "/files/"


def file_options(data: IngestFileInput | None) -> FileOptions:
    """The domain's options for a GraphQL input (absent: every default)."""
    if data is None:
        return FileOptions()
    return FileOptions(
        source_urn=data.source_urn,
        kind=data.kind if data.kind is not None else "file",
        tags=tuple(data.tags),
        ocr=data.ocr,
        priority=FILE_PRIORITY if data.priority is None else data.priority,
        observed_at=data.observed_at,
        connection_id=data.connection_id,
    )


def to_stored_file(file: DomainStoredFile) -> StoredFile:
    """The GraphQL form of a stored original."""
    return StoredFile(
        id=strawberry.ID(file.id),
        source_urn=file.source_urn,
        filename=file.filename,
        media_type=file.media_type,
        size=file.size,
        sha256=file.sha256,
        created_at=file.created_at,
        scope=scope_info(file.scope),
        download_url=f"{DOWNLOAD_PATH}{file.id}",
        kept=file.kept,
        not_kept_reason=file.not_kept,
        not_kept_message=NOT_KEPT_MESSAGES[file.not_kept] if file.not_kept else None,
    )


def to_file_success(queued: QueuedFile) -> IngestFileSuccess:
    """The GraphQL form of a queued file."""
    return IngestFileSuccess(job=to_handle(queued.queued), file=to_stored_file(queued.file))


async def read_upload(upload: Any, limit: int) -> bytes:
    """The upload's bytes, refused as soon as they pass ``limit``."""
    if not callable(getattr(upload, "read", None)):
        # The Upload scalar takes any JSON value; only a multipart file part is a file.
        raise ValidationError(
            "file must be a file part of a multipart request (the GraphQL multipart "
            "request spec), not a JSON value",
            field="file",
        )
    size = getattr(upload, "size", None)
    if isinstance(size, int) and size > limit:
        raise FileTooLargeError(f"the file has {size} bytes, over the limit of {limit}")
    pieces, total = [], 0
    while piece := await upload.read(READ_BYTES):
        total += len(piece)
        if total > limit:
            raise FileTooLargeError(f"the file has over {limit} bytes, the limit")
        pieces.append(piece)
    # bytes.join lets go of the GIL for large copies: off the loop, 100 MB cost it 50 ms.
    return await off_loop(total, lambda: b"".join(pieces))


@error_members
async def resolve_ingest_file(
    info: Info, file: Upload, input: IngestFileInput | None = None
) -> IngestFileResult:
    """Check a file at once, keep it and queue its ingestion."""
    scope = to_scope(input.scope) if input is not None else None
    asked = FileUpload(getattr(file, "filename", None), file_options(input), scope)
    ports = info.context.runtime.file_ports()
    queued = await ingest_file(caller(info), asked, partial(read_upload, file), ports)
    return to_file_success(queued)


async def resolve_stored_file(info: Info, id: strawberry.ID) -> StoredFile | None:
    """A stored original the caller may read (its chunks' visibility); null otherwise."""
    found = await info.context.runtime.file_work.files.get(str(id), read_scope(info))
    return to_stored_file(found) if found is not None else None
