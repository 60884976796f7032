"""A file as a queued job: what ``ingestFile`` (GraphQL, MCP, the CLI) checks at once, stores
and enqueues; the "file" task runner (``file_runner.py``) does the rest.

At once, before anything is stored: the size (``FileLimits.max_bytes``), the type from the
content (``TypeDetector``: the bytes decide, never the name), the identifiers free of
credentials. Then the original is kept (``FileStore``) and one job is queued whose identity
is the source and the content with its options, so the same upload asked again answers the
job already queued or done.

Example::

    queued = await request_file(data, "report.pdf", FileOptions(), scope,
                                limits=FileLimits(), detect=detect, files=store, queue=jobs)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.rules import check_identifiers
from kenning.domain.ingestion.validity import checked_observed_at, from_iso, iso
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import FILE_PRIORITY, MAX_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import JobQueue, NewJob
from kenning.domain.sources.files.extracted import MediaType, OcrMode
from kenning.domain.sources.files.limits import FileLimits, check_size
from kenning.domain.sources.files.stored import FileStore, StoredFile

FILE_TASK: Final = "file"
MAX_FILENAME: Final = 255


class TypeDetector(Protocol):
    """The type of a file from its content (``kenning.storage.sources.files.detect``)."""

    def __call__(
        self, data: bytes, *, filename: str | None, declared_type: str | None, limits: FileLimits
    ) -> MediaType: ...


@dataclass(frozen=True, slots=True)
class FileOptions:
    """What a caller may say about a file: its source URN (default ``file:<filename>``), kind,
    tags, OCR mode, queue priority (0..9) and when its content was true (``observed_at``;
    None: the file's own date, else when it is stored)."""

    source_urn: str | None = None
    kind: str = "file"
    tags: tuple[str, ...] = ()
    ocr: OcrMode = OcrMode.AUTO
    priority: int = FILE_PRIORITY
    observed_at: datetime | None = None
    # The registered connection the file comes through (checked by ``ingest_file``).
    connection_id: str | None = None


@dataclass(frozen=True, slots=True)
class FileJob:
    """What the "file" runner reads from its payload."""

    file_id: str
    kind: str
    tags: tuple[str, ...]
    ocr: OcrMode
    observed_at: datetime | None = None  # the writer's, checked; it wins over the file's


@dataclass(frozen=True, slots=True)
class QueuedFile:
    """The stored original and the job that ingests it."""

    file: StoredFile
    media_type: MediaType
    queued: EnqueueResult


def file_name(filename: str | None) -> str:
    """The file's name without any directory part; refused when empty or over 255."""
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name or len(name) > MAX_FILENAME or any(ord(c) < 32 for c in name):
        raise ValidationError(
            f"the file needs a name of 1..{MAX_FILENAME} printable characters", field="filename"
        )
    return name


def checked_options(options: FileOptions, filename: str) -> FileOptions:
    """``options`` with the source URN decided and every field checked (named as GraphQL
    names it)."""
    urn = (options.source_urn or f"file:{filename}").strip()
    if not urn or len(urn) > 2048:
        raise ValidationError("sourceUrn must be 1..2048 characters", field="sourceUrn")
    if not options.kind.strip() or len(options.kind) > 200:
        raise ValidationError("kind must be 1..200 characters", field="kind")
    priority = options.priority
    if isinstance(priority, bool) or not 0 <= priority <= MAX_PRIORITY:
        raise ValidationError(f"priority must be 0..{MAX_PRIORITY}", field="priority")
    when = checked_observed_at(options.observed_at, datetime.now(UTC), "observedAt")
    fields = [("sourceUrn", urn), ("kind", options.kind)]
    fields += [(f"tags[{i}]", tag) for i, tag in enumerate(options.tags)]
    check_identifiers(fields)
    return FileOptions(
        urn, options.kind.strip(), options.tags, options.ocr, priority, when, options.connection_id
    )


async def request_file(
    data: bytes,
    filename: str | None,
    options: FileOptions,
    scope: Scope,
    *,
    limits: FileLimits,
    detect: TypeDetector,
    files: FileStore,
    queue: JobQueue,
) -> QueuedFile:
    """Check ``data`` at once, keep it and queue its "file" job; a refused file stores nothing."""
    check_size(len(data), limits)
    name = file_name(filename)
    checked = checked_options(options, name)
    urn = checked.source_urn or ""
    media = await off_loop(
        len(data), lambda: detect(data, filename=name, declared_type=None, limits=limits)
    )
    stored = await files.save(scope, urn, name, media.value, data)
    job = FileJob(stored.id, checked.kind, checked.tags, checked.ocr, checked.observed_at)
    body = file_body(job)
    version = json.dumps([stored.sha256, body], sort_keys=True)
    identity = IngestionIdentity(FILE_TASK, urn, hashlib.sha256(version.encode()).hexdigest())
    queued = await queue.enqueue(
        NewJob(
            identity=identity,
            scope=scope,
            priority=checked.priority,
            source_urn=urn,
            connection_id=checked.connection_id,
            payload=task_payload(FILE_TASK, body),
        )
    )
    return QueuedFile(stored, media, queued)


def file_body(job: FileJob) -> dict[str, Any]:
    """The job's payload body (``task_payload`` adds the task); ``observedAt`` only when
    given, so the jobs of files uploaded without one keep their identity."""
    when = {"observedAt": iso(job.observed_at)} if job.observed_at else {}
    return {
        "file": {
            "id": job.file_id,
            "kind": job.kind,
            "tags": list(job.tags),
            "ocr": job.ocr.value,
            **when,
        }
    }


def file_job(payload: Mapping[str, Any]) -> FileJob:
    """The job a "file" payload describes."""
    body = payload.get("file")
    if payload.get("task") != FILE_TASK or not isinstance(body, Mapping):
        raise ValidationError("unreadable file job payload")
    try:
        when = body.get("observedAt")
        return FileJob(
            str(body["id"]),
            str(body["kind"]),
            tuple(map(str, body.get("tags") or ())),
            OcrMode(body.get("ocr", OcrMode.AUTO.value)),
            from_iso(when) if isinstance(when, str) else None,
        )
    except (KeyError, ValueError):
        raise ValidationError("unreadable file job payload") from None
