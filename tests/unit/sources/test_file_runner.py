"""The "file" runner over fakes: one source per file and attachment with ``attached_to``
evidence, two attachments of one name kept apart, a credential in an attachment refusing
the whole file (nothing of the message written), a refused file failing its job with the
problem named and its original deleted."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import Job, JobStatus, Lane, Lease
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import ClaimedJob
from kenning.domain.queue.runner import run_job
from kenning.domain.queue.tasks import JobDeps
from kenning.domain.sources.files import (
    Attachment,
    EncryptedFileError,
    ExtractedFile,
    FileLimits,
    Location,
    MediaType,
    OcrMode,
    Part,
)
from kenning.domain.sources.files.file_graph import FileSource, file_graphs
from kenning.domain.sources.files.file_job import FILE_TASK, FileJob, file_body
from kenning.domain.sources.files.file_runner import FileWork, file_runner
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.file_store import FakeFileStore
from tests.fakes.knowledge_store import FakeStore
from tests.fakes.work_queue import FakeWorkQueue
from tests.support.ingest_deps import deps

NOW = datetime(2026, 11, 25, tzinfo=UTC)
SCOPE = Scope("acme")
CREDENTIAL = "deploy with AKIAIOSFODNN7EXAMPLF please"


def text_file(text: str, media: MediaType = MediaType.TEXT, **extra: Any) -> ExtractedFile:
    return ExtractedFile(media, text, (Part(0, len(text), Location(page=1)),), **extra)


class Parser:
    """Answers one extracted file, or raises one error."""

    def __init__(self, answer: ExtractedFile | Exception) -> None:
        self.answer = answer

    def parse(self, data: bytes, **_: Any) -> ExtractedFile:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def claimed(payload: Mapping[str, Any]) -> ClaimedJob:
    job = Job(
        id="j1", status=JobStatus.RUNNING, stage=None, lane=Lane.BULK, priority=3,
        scope=SCOPE, source_urn="file:mail.eml", connection_id=None, source_kind="file",
        source_id=None, content_version=None, attempts=0, next_attempt_at=None,
        last_error=None, version=1, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return ClaimedJob(job, Lease("j1", "w/1"), payload)


async def run(answer: ExtractedFile | Exception) -> tuple[JobStatus | None, FakeStore, Any]:
    files, store, queue = FakeFileStore(), FakeStore(), FakeWorkQueue()
    stored = await files.save(SCOPE, "file:mail.eml", "mail.eml", "message/rfc822", b"x")
    work = FileWork(files, Parser(answer), lambda *a, **k: MediaType.EMAIL, None, FileLimits())
    job = JobDeps(ingest=deps(store, FakeEmbedder()), runners={FILE_TASK: file_runner(work)})
    body = file_body(FileJob(stored.id, "file", ("mail",), OcrMode.AUTO))
    status = await run_job(claimed(task_payload(FILE_TASK, body)), queue, job)
    return status, store, (files, queue)


async def test_each_attachment_is_a_source_attached_to_its_message() -> None:
    mail = text_file(
        "The database failed over.", MediaType.EMAIL,
        attachments=(Attachment("log.txt", text_file("first log")),
                     Attachment("log.txt", text_file("second log")),
                     Attachment(None, text_file(""))),
    )  # fmt: skip
    status, store, _ = await run(mail)
    assert status is JobStatus.INDEXED
    assert set(store.sources) == {
        "file:mail.eml", "file:mail.eml/log.txt", "file:mail.eml/2-log.txt",
        "file:mail.eml/attachment-3",
    }  # fmt: skip
    # The fake store knows no stored nodes, so it rejects edges to the message (written by
    # the request before); the requests themselves carry them, with their evidence.
    requests = file_graphs(mail, FileSource("file:mail.eml", "file", (), SCOPE, 3, "f1"))
    attached = {
        (e.from_key, e.to_key) for r in requests for e in r.edges if e.edge_type == "attached_to"
    }
    assert all(e.evidence_chunk_ids == ("c0",) for r in requests for e in r.edges)
    assert attached == {
        ("document:file_mail.eml/log.txt", "document:file_mail.eml"),
        ("document:file_mail.eml/2-log.txt", "document:file_mail.eml"),
    }
    empty = [n for n in store.nodes if n.key == "document:file_mail.eml/attachment-3"]
    assert empty and empty[0].properties["attachedTo"] == "document:file_mail.eml"
    assert all(c.metadata.get("page") == 1 for c in store.chunks)


async def test_a_credential_in_an_attachment_refuses_the_whole_file() -> None:
    mail = text_file("Hello.", MediaType.EMAIL,
                     attachments=(Attachment("env.txt", text_file(CREDENTIAL)),))  # fmt: skip
    status, store, (files, _) = await run(mail)
    assert status is JobStatus.FAILED
    assert store.sources == {} and store.chunks == []
    assert files.files == {}  # the original holding the credential is not kept


async def test_a_refused_file_fails_with_its_problem_and_loses_its_original() -> None:
    status, store, (files, queue) = await run(EncryptedFileError("the PDF is encrypted"))
    assert status is JobStatus.FAILED
    assert "ENCRYPTED: the PDF is encrypted" in queue.log[-1][1][1]
    assert files.files == {} and store.sources == {}
