"""The "file" task runner: a queued file (``file_job.py``) read from its stored original,
extracted, chunked by structure and ingested as one source per file and attachment.

A file that cannot be extracted (corrupt, encrypted, over a limit, a zip bomb) fails its job
with the problem named (``INVALID: ENCRYPTED: ...``) before anything is written, and its
original is deleted: no chunk of it exists for anyone to download it by. Secrets in the
text are handled by ``ingest_graph``'s policy, exactly as for text ingests; a file the
policy refuses (REJECT) is refused whole, attachments included, and its original deleted.

Example: ``JobDeps(..., runners={FILE_TASK: file_runner(FileWork(store, parser, detect))})``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial

from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.ingestion.graph_items import GraphRequest, check_items, request_size
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.request import IngestStatus
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.off_loop import off_loop
from kenning.domain.queue.jobs import JobStatus
from kenning.domain.queue.tasks import TaskRun, TaskRunner
from kenning.domain.sources.files.errors import FileRejectedError, FileTooLargeError
from kenning.domain.sources.files.extract import extract_file
from kenning.domain.sources.files.extracted import ExtractedFile
from kenning.domain.sources.files.file_graph import FileSource, file_graphs
from kenning.domain.sources.files.file_job import FileJob, TypeDetector, file_job
from kenning.domain.sources.files.limits import FileLimits
from kenning.domain.sources.files.ports import FileParser, ImageDescriber
from kenning.domain.sources.files.stored import FileStore, StoredFile, file_bytes

logger = logging.getLogger("kenning.sources.files")


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
            raise NotFoundError(f"the stored file {job.file_id} is gone", field="fileId")
        extracted = await _extracted(work, stored, job)
        source = FileSource(
            stored.source_urn, job.kind, job.tags, task.job.scope, task.job.priority,
            stored.id, stored.filename,
        )  # fmt: skip
        requests = file_graphs(extracted, source)
        await _checked(work, stored, requests, task.ingest.secret_policy)
        indexed = False
        for request in requests:
            await task.checkpoint()
            outcome = await ingest_graph(request, task.ingest)
            indexed = indexed or outcome.outcome.status is IngestStatus.INDEXED
        return JobStatus.INDEXED if indexed else JobStatus.SKIPPED_DUPLICATE

    return run


async def _checked(
    work: FileWork, stored: StoredFile, requests: list[GraphRequest], policy: SecretPolicy
) -> None:
    """A refused attachment (a credential under REJECT) refuses the whole file before its
    message is written, and the original holding the credential is not kept."""
    try:
        for request in requests:
            await off_loop(request_size(request), partial(check_items, request, policy))
    except SensitiveContentError:
        await work.files.delete(stored.id, stored.scope)
        raise


async def _extracted(work: FileWork, stored: StoredFile, job: FileJob) -> ExtractedFile:
    data = await file_bytes(work.files, stored)
    try:
        return await extract_file(
            data, filename=stored.filename, ocr=job.ocr, limits=work.limits,
            parser=work.parser, describer=work.describer,
        )  # fmt: skip
    except (FileRejectedError, FileTooLargeError) as error:
        await work.files.delete(stored.id, stored.scope)
        logger.info(
            "files.refused",
            extra={"file_id": stored.id, "problem": error.problem.value, "size": stored.size},
        )
        raise ValidationError(f"{error.problem.value}: {error.message}", field="file") from error
