"""A file upload as GraphQL's ``ingestFile`` and MCP's ``ingest_file`` ask for it: the
caller's write scope settled first, then the bytes read up to the limit (each face reads
its own transport: a multipart part, base64 text), then ``request_file`` (``file_job.py``)
checks, keeps and queues it.

Example::

    queued = await ingest_file(caller, FileUpload("report.pdf", FileOptions()), read, ports)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.rules import check_write_connection
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.queue.ports import JobQueue
from kenning.domain.sources.files.file_job import FileOptions, QueuedFile, request_file
from kenning.domain.sources.files.file_runner import FILE_SOURCE_KIND, FileWork

# The upload's bytes, refused (``FileTooLargeError``) as soon as they pass the given limit.
ReadBytes = Callable[[int], Awaitable[bytes]]


@dataclass(frozen=True, slots=True)
class FileUpload:
    """A file's name and options, kept at ``scope`` (None: the key's own)."""

    filename: str | None
    options: FileOptions
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class FilePorts:
    """Where files are checked and kept (``FileWork``), the queue of their jobs, and the
    connections an upload may name."""

    work: FileWork
    jobs: JobQueue
    connections: ConnectionRegistry


async def ingest_file(
    caller: CallerScope, asked: FileUpload, read: ReadBytes, ports: FilePorts
) -> QueuedFile:
    """Read the file within the limit at the caller's write scope, keep it, queue its job."""
    scope = await caller.stored_writing(asked.scope)
    connection = asked.options.connection_id
    await check_write_connection(scope, connection, FILE_SOURCE_KIND, ports.connections)
    work = ports.work
    data = await read(work.limits.max_bytes)
    return await request_file(
        data,
        asked.filename,
        asked.options,
        scope,
        limits=work.limits,
        detect=work.detect,
        files=work.files,
        queue=ports.jobs,
    )
