"""The "file" task runner: a queued file (``file_job.py``) read from its stored original,
extracted, chunked by structure and ingested as one source per file and attachment.

A file that cannot be extracted (corrupt, encrypted, over a limit, a zip bomb), or that
would be stored as more chunks than ``FileLimits.max_chunks`` (its attachments counted
with it), fails its job with the problem named (``INVALID: ENCRYPTED: ...``) before anything
is written, and its original is deleted: no chunk of it exists for anyone to download it by.
Secrets in the text are handled by ``ingest_graph``'s policy, exactly as for text ingests; a
file the policy refuses (REJECT) is refused whole, attachments included, and its original
deleted. Each write holds the original (``held_original``): a file purged while its job ran
ends the job SKIPPED with nothing of it written.

Secrets never reach storage, so a file whose text (or an attachment's) held a credential is
not kept whatever the policy: under REDACT its chunks are stored redacted, then ``settle``
drops its bytes and leaves a tombstone saying why (``NotKeptReason.CREDENTIALS``). Once
indexed, a file supersedes the originals its source had before (``FileStore.settle``). A
purge cancels the file's jobs; one whose original is gone when it starts anyway (retried
after the purge) fails saying so.

Example: ``JobDeps(..., runners={FILE_TASK: file_runner(FileWork(store, parser, detect))})``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from functools import partial

from kenning.domain.errors import KenningError, NotFoundError, ValidationError
from kenning.domain.ingestion.graph_items import GraphRequest, check_items, request_size
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.off_loop import off_loop
from kenning.domain.queue.jobs import JobStatus
from kenning.domain.queue.tasks import TaskRun, TaskRunner
from kenning.domain.sources.files.errors import FileRejectedError, FileTooLargeError
from kenning.domain.sources.files.extract import extract_file
from kenning.domain.sources.files.extracted import ExtractedFile
from kenning.domain.sources.files.file_graph import FileSource, file_graphs, stored_chunks
from kenning.domain.sources.files.file_job import FileJob, TypeDetector, file_job
from kenning.domain.sources.files.held_original import HeldOriginalStore, OriginalPurgedError
from kenning.domain.sources.files.limits import FileLimits, check_chunks
from kenning.domain.sources.files.ports import FileParser, ImageDescriber
from kenning.domain.sources.files.stored import (
    FileStore,
    NotKeptReason,
    StoredFile,
    file_bytes,
)

logger = logging.getLogger("kenning.sources.files")
# The source kind of a file stored through a connection (one with none keeps none, so the
# content hash of files uploaded before connections could be named is unchanged).
FILE_SOURCE_KIND = "file"


@dataclass(frozen=True, slots=True)
class FileWork:
    """What files are checked, kept, read and extracted with (the upload's checks and the
    runner share it); ``describer`` None indexes OCR text alone."""

    files: FileStore
    parser: FileParser
    detect: TypeDetector
    describer: ImageDescriber | None = None
    limits: FileLimits = field(default_factory=FileLimits)


def file_runner(work: FileWork) -> TaskRunner:
    """The runner of "file" jobs over ``work``."""

    async def run(task: TaskRun) -> JobStatus:
        job = file_job(task.payload)
        stored = await work.files.get(job.file_id, task.job.scope)
        if stored is None:
            raise NotFoundError(_gone(task.job.source_urn), field="fileId")
        if not stored.kept:  # settled by an earlier attempt: its chunks are stored
            return JobStatus.SKIPPED_DUPLICATE
        extracted = await _extracted(work, stored, job)
        source = FileSource(
            stored.source_urn,
            job.kind,
            job.tags,
            task.job.scope,
            task.job.priority,
            stored.id,
            stored.filename,
            job.observed_at,
        )
        requests = await _requests(work, stored, extracted, source, task.ingest.chunk_limit)
        held = await _credentials(work, stored, requests, task.ingest.secret_policy)
        erased = await _names_erased(work, stored, requests, task.ingest.tombstones)
        deps = replace(task.ingest, store=HeldOriginalStore(task.ingest.store, stored.id))
        requests = _through(requests, task.job.connection_id)
        indexed = False
        try:
            for request in requests:
                await task.checkpoint()
                outcome = await ingest_graph(request, deps)
                indexed = indexed or outcome.outcome.status is IngestStatus.INDEXED
        except OriginalPurgedError:
            logger.info("files.purged", extra={"file_id": stored.id, "job_id": task.job.id})
            return JobStatus.SKIPPED_DUPLICATE
        not_kept = NotKeptReason.CREDENTIALS if held else None
        not_kept = NotKeptReason.ERASED if erased else not_kept
        superseded = await work.files.settle(stored, not_kept)
        logger.info(
            "files.settled",
            extra={"file_id": stored.id, "kept": not_kept is None, "superseded": superseded},
        )
        return JobStatus.INDEXED if indexed else JobStatus.SKIPPED_DUPLICATE

    return run


async def _names_erased(
    work: FileWork, stored: StoredFile, requests: list[GraphRequest], guard: WriteGuard | None
) -> bool:
    """Whether the file names a subject an erasure removed: its chunks then come in
    redacted, and its original is not kept (nor when the tombstones refuse it)."""
    if guard is None:
        return False
    try:
        return any([await guard.guarded_graph(r) != r for r in requests])
    except KenningError:
        await work.files.settle(stored, NotKeptReason.ERASED)
        raise


def _through(requests: list[GraphRequest], connection_id: str | None) -> list[GraphRequest]:
    """A connection's file (and its attachments) stored as coming through it."""
    if connection_id is None:
        return requests
    return [replace(r, connection_id=connection_id, source_kind=FILE_SOURCE_KIND) for r in requests]


def _gone(source_urn: str | None) -> str:
    return (
        f"the source {source_urn or ''} was purged after this file was uploaded: its stored "
        "original is gone; upload the file again to ingest it"
    )


async def _credentials(
    work: FileWork, stored: StoredFile, requests: list[GraphRequest], policy: SecretPolicy
) -> bool:
    """Whether any request holds a credential. Under REJECT one refuses the whole file (an
    attachment's too) before its message is written; under REDACT a credential in an
    identifier still refuses it. A refused file's original is not kept, nor is one whose
    request the checks refuse otherwise (over the items a request may hold): running the job
    again would refuse it again."""
    held = False
    try:
        for request in requests:
            size = request_size(request)
            try:
                await off_loop(size, partial(check_items, request, SecretPolicy.REJECT))
            except SensitiveContentError:
                if policy is SecretPolicy.REJECT:
                    raise
                await off_loop(size, partial(check_items, request, policy))
                held = True
    except KenningError:  # a credential refused, or more items than a request may hold
        await work.files.delete(stored.id, stored.scope)
        raise
    return held


async def _extracted(work: FileWork, stored: StoredFile, job: FileJob) -> ExtractedFile:
    data = await file_bytes(work.files, stored)
    try:
        return await extract_file(
            data,
            filename=stored.filename,
            ocr=job.ocr,
            limits=work.limits,
            parser=work.parser,
            describer=work.describer,
        )
    except (FileRejectedError, FileTooLargeError) as error:
        raise await _refused(work, stored, error) from error


async def _requests(
    work: FileWork,
    stored: StoredFile,
    extracted: ExtractedFile,
    source: FileSource,
    chunk_limit: int,
) -> list[GraphRequest]:
    """The file's requests, chunked off the loop (a 25 MB text is a second of chunking). A
    file over ``max_chunks`` is refused as one that cannot be extracted, before any write."""

    def build() -> list[GraphRequest]:
        requests = file_graphs(extracted, source)
        check_chunks(stored_chunks(requests, chunk_limit, work.limits.max_chunks), work.limits)
        return requests

    try:
        return await off_loop(_text_size(extracted), build)
    except FileTooLargeError as error:
        raise await _refused(work, stored, error) from error


def _text_size(extracted: ExtractedFile) -> int:
    return len(extracted.text) + sum(_text_size(a.file) for a in extracted.attachments)


async def _refused(
    work: FileWork, stored: StoredFile, error: FileRejectedError | FileTooLargeError
) -> ValidationError:
    """The job's error for a refused file, once its original is deleted."""
    await work.files.delete(stored.id, stored.scope)
    logger.info(
        "files.refused",
        extra={"file_id": stored.id, "problem": error.problem.value, "size": stored.size},
    )
    return ValidationError(f"{error.problem.value}: {error.message}", field="file")
