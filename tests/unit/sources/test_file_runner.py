"""The "file" runner over fakes: one source per file and attachment with ``attached_to``
evidence, two attachments of one name kept apart, a credential in an attachment refusing
the whole file (nothing of the message written), a refused file failing its job with the
problem named and its original deleted, a file over the chunk limit (attachments counted)
refused the same way with nothing written; under REDACT a file that held a credential
indexed redacted and its original not kept; a file indexed superseding its source's older
originals (not queued ones); a file purged while queued failing its job saying so, and one
purged while its job ran ending it SKIPPED with nothing of it written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.secrets.scan import SecretPolicy
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
from kenning.domain.sources.files.stored import NotKeptReason
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


async def run(
    answer: ExtractedFile | Exception,
    policy: SecretPolicy = SecretPolicy.REJECT,
    files: FakeFileStore | None = None,
    data: bytes = b"x",
    store: FakeStore | None = None,
    limits: FileLimits | None = None,
) -> tuple[JobStatus | None, FakeStore, Any]:
    files = files if files is not None else FakeFileStore()
    store, queue = store if store is not None else FakeStore(), FakeWorkQueue()
    stored = await files.save(SCOPE, "file:mail.eml", "mail.eml", "message/rfc822", data)
    work = FileWork(
        files, Parser(answer), lambda *a, **k: MediaType.EMAIL, None, limits or FileLimits()
    )
    ingest = replace(deps(store, FakeEmbedder()), secret_policy=policy)
    job = JobDeps(ingest=ingest, runners={FILE_TASK: file_runner(work)})
    body = file_body(FileJob(stored.id, "file", ("mail",), OcrMode.AUTO))
    status = await run_job(claimed(task_payload(FILE_TASK, body)), queue, job)
    return status, store, (files, queue, stored.id, job, body)


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
    status, store, (files, *_) = await run(mail)
    assert status is JobStatus.FAILED
    assert store.sources == {} and store.chunks == []
    assert files.files == {}  # the original holding the credential is not kept


async def test_a_refused_file_fails_with_its_problem_and_loses_its_original() -> None:
    status, store, (files, queue, *_) = await run(EncryptedFileError("the PDF is encrypted"))
    assert status is JobStatus.FAILED
    assert "ENCRYPTED: the PDF is encrypted" in queue.log[-1][1][1]
    assert files.files == {} and store.sources == {}


async def test_a_file_over_the_chunk_limit_with_its_attachments_is_refused_whole() -> None:
    words = "failover " * 120  # one piece of the file, chunked again at the ingest limit
    mail = text_file(words, MediaType.EMAIL,
                     attachments=(Attachment("a.txt", text_file(words)),
                                  Attachment("b.txt", text_file(words))))  # fmt: skip
    status, store, _ = await run(mail)
    assert status is JobStatus.INDEXED
    stored = len(store.chunks)
    assert stored > 3 * 2  # each piece of 1,080 characters became several chunks
    status, _, _ = await run(mail, limits=FileLimits(max_chunks=stored))
    assert status is JobStatus.INDEXED  # exactly at the limit
    status, store, (files, queue, *_) = await run(mail, limits=FileLimits(max_chunks=stored - 1))
    assert status is JobStatus.FAILED
    assert queue.log[-1][1][1] == (
        f"INVALID: TOO_LARGE: the file would be stored as more than {stored - 1} chunks "
        "(attachments included), the limit per file"
    )
    assert store.sources == {} and store.chunks == [] and store.nodes == []
    assert files.files == {}  # the original is deleted with the refusal


async def test_under_redact_a_file_that_held_a_credential_is_indexed_but_not_kept() -> None:
    mail = text_file("Hello.", MediaType.EMAIL,
                     attachments=(Attachment("env.txt", text_file(CREDENTIAL)),))  # fmt: skip
    status, store, (files, queue, file_id, job, body) = await run(mail, SecretPolicy.REDACT)
    assert status is JobStatus.INDEXED
    assert set(store.sources) == {"file:mail.eml", "file:mail.eml/env.txt"}
    assert not any("AKIAIOSFODNN7EXAMPLF" in c.content for c in store.chunks)
    stored, data = files.files[file_id]
    assert (stored.kept, stored.not_kept, data) == (False, NotKeptReason.CREDENTIALS, b"")
    # A retried job finds the tombstone: its chunks are stored, nothing is read again.
    again = await run_job(claimed(task_payload(FILE_TASK, body)), queue, job)
    assert again is JobStatus.SKIPPED_DUPLICATE
    assert files.files[file_id][0].not_kept is NotKeptReason.CREDENTIALS


async def test_under_redact_a_clean_file_is_kept() -> None:
    status, _, (files, _, file_id, *_) = await run(text_file("Plain."), SecretPolicy.REDACT)
    assert status is JobStatus.INDEXED
    assert files.files[file_id][0].kept and files.files[file_id][1] == b"x"


async def test_an_indexed_file_supersedes_older_originals_but_not_queued_ones() -> None:
    files = FakeFileStore()
    older = await files.save(SCOPE, "file:mail.eml", "mail.eml", "message/rfc822", b"old")
    await files.settle(older, None)
    queued = await files.save(SCOPE, "file:mail.eml", "mail.eml", "message/rfc822", b"new")
    other = await files.save(Scope("globex"), "file:mail.eml", "mail.eml", "x", b"old")
    await files.settle(other, None)
    status, _, (_, _, file_id, *_) = await run(text_file("Now."), files=files, data=b"now")
    assert status is JobStatus.INDEXED
    assert set(files.files) == {file_id, queued.id, other.id}


async def test_a_file_purged_while_queued_fails_its_job_saying_so() -> None:
    files = FakeFileStore()

    class Purging(FakeFileStore):
        async def get(self, file_id: str, reader: Scope) -> Any:
            await files.delete(file_id, SCOPE)  # the purge happened before the job ran
            return await files.get(file_id, reader)

    purging = Purging()
    purging.files = files.files
    status, store, (_, queue, *_) = await run(text_file("Late."), files=purging)
    assert status is JobStatus.FAILED
    message = queue.log[-1][1][1]
    assert "file:mail.eml was purged after this file was uploaded" in message
    assert store.sources == {}


async def test_a_file_purged_while_its_job_runs_ends_skipped_with_nothing_written() -> None:
    store = FakeStore()

    class PurgedWhileParsing(Parser):
        def parse(self, data: bytes, **_: Any) -> ExtractedFile:
            store.purged_files.add("f1")  # the purge deletes the original meanwhile
            return super().parse(data)

    attachment = Attachment("log.txt", text_file("a log"))
    mail = text_file("Late.", MediaType.EMAIL, attachments=(attachment,))
    files = FakeFileStore()
    stored = await files.save(SCOPE, "file:mail.eml", "mail.eml", "message/rfc822", b"x")
    work = FileWork(files, PurgedWhileParsing(mail), lambda *a, **k: MediaType.EMAIL)
    job = JobDeps(ingest=deps(store, FakeEmbedder()), runners={FILE_TASK: file_runner(work)})
    body = file_body(FileJob(stored.id, "file", (), OcrMode.AUTO))
    queue = FakeWorkQueue()
    status = await run_job(claimed(task_payload(FILE_TASK, body)), queue, job)
    assert status is JobStatus.SKIPPED_DUPLICATE
    assert store.sources == {} and store.chunks == [] and store.nodes == []
    assert files.indexed == []  # not settled: nothing of it was indexed


async def test_a_file_of_more_pieces_than_a_request_holds_fails_and_loses_its_original() -> None:
    pages = 5_001  # a piece per page: a chunk never spans two pages
    text = "".join(f"Page {n}.\n" for n in range(pages))
    parts, start = [], 0
    for n in range(pages):
        end = text.index("\n", start) + 1
        parts.append(Part(start, end, Location(page=n + 1)))
        start = end
    status, store, (files, queue, *_) = await run(ExtractedFile(MediaType.PDF, text, tuple(parts)))
    assert status is JobStatus.FAILED
    assert "TOO_LARGE" in queue.log[-1][1][1] and "5000 items" in queue.log[-1][1][1]
    assert files.files == {} and store.sources == {}
