"""The erasure use cases: ``request_erasure`` (the mutation: a PENDING receipt and a job in
the priority lane) and ``erase_subject`` (what the job runs, in one transaction).

The job's payload carries the key until the erasure's own transaction rewrites every row of
the client that names it, that payload included; the receipt turns DONE in that same
transaction, so a job run again after a crash finds it DONE and does nothing.

Example: ``await request_erasure("acme", "person:ann", ErasureMode.DELETE, "key-1", ports)``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder, embed_texts
from kenning.domain.erasure.model import Counts, ErasureMode, Receipt, ReceiptStatus, Subject
from kenning.domain.erasure.names import NameMatch, form_hash, words
from kenning.domain.erasure.ports import (
    ErasureStore,
    ErasureUnit,
    ReceiptBook,
    RewrittenChunk,
)
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.aliases import canonical_form
from kenning.domain.priorities import ERASURE_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity, JobStage, JobStatus
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import JobQueue, NewJob
from kenning.domain.queue.tasks import TaskRun, TaskRunner

ERASE_TASK: Final = "erase"

logger = logging.getLogger("kenning.erasure")


@dataclass(frozen=True, slots=True)
class ErasurePorts:
    store: ErasureStore
    receipts: ReceiptBook
    embedder: Embedder


@dataclass(frozen=True, slots=True)
class ErasureRequest:
    """What ``eraseSubject`` answers: the PENDING receipt and the queued job."""

    receipt: Receipt
    job: EnqueueResult


def erasure_client(client_id: str) -> str:
    """The client an erasure acts in; an erasure never spans clients."""
    if not client_id:
        raise ValidationError(
            "an erasure acts within one client: give scope.clientId", field="clientId"
        )
    return client_id


async def request_erasure(
    client_id: str,
    key: str,
    mode: ErasureMode,
    requested_by: str,
    *,
    receipts: ReceiptBook,
    queue: JobQueue,
) -> ErasureRequest:
    """Check ``key``, open a receipt and queue the erasure in the priority lane. An unknown
    key is queued like any other (its receipt counts zero), so nothing tells whether it
    existed."""
    canonical_form(key, "key")
    receipt = await receipts.open(erasure_client(client_id), mode, requested_by)
    job = await queue.enqueue(
        NewJob(
            identity=IngestionIdentity("erasure", receipt.id, "1"),
            scope=Scope(client_id),
            priority=ERASURE_PRIORITY,
            source_urn=f"erasure:{receipt.id}",
            connection_id=None,
            payload=task_payload(
                ERASE_TASK, {"receipt": receipt.id, "key": key, "mode": mode.value}
            ),
        )
    )
    await receipts.attach_job(receipt.id, job.job_id)
    logger.info(
        "erasure.requested",
        extra={"receipt": receipt.id, "job_id": job.job_id, "client_id": client_id},
    )
    return ErasureRequest(receipt, job)


async def erase_subject(
    client_id: str,
    key: str,
    mode: ErasureMode,
    receipt_id: str,
    ports: ErasurePorts,
    *,
    priority: int = ERASURE_PRIORITY,
) -> Counts:
    """Erase ``key`` from the client in one transaction; the receipt is DONE when it
    commits. REDACT re-embeds the rewritten chunks with ``ports.embedder``."""
    started = time.perf_counter()
    canonical = canonical_form(key, "key")

    async def work(unit: ErasureUnit) -> Counts:
        subject = await unit.subject(client_id, canonical)
        names = NameMatch.of(client_id, subject.forms())
        counts = await unit.remove_memory(client_id, subject, names)
        chunks = await unit.chunks_naming(client_id, subject, names)
        if mode is ErasureMode.DELETE:
            counts += await unit.delete_chunks(client_id, [c.id for c in chunks])
        else:
            texts = [names.redact(c.content) for c in chunks]
            vectors = await embed_texts(texts, priority, ports.embedder)
            rewritten = [
                RewrittenChunk(c.id, text, vector)
                for c, text, vector in zip(chunks, texts, vectors, strict=True)
            ]
            counts += await unit.rewrite_chunks(client_id, rewritten, subject)
        counts += await unit.remove_graph(client_id, subject)
        counts += await unit.redact_rows(client_id, names, mode)
        await unit.add_tombstones(client_id, tombstones(client_id, subject))
        counts = Counts({k: v for k, v in counts.items() if v})
        await unit.finish_receipt(receipt_id, counts)
        return counts

    counts = await ports.store.erase(work)
    logger.info(
        "erasure.done",
        extra={
            "receipt": receipt_id,
            "client_id": client_id,
            "mode": mode.value,
            **{f"n_{k}": v for k, v in counts.items()},
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return counts


def tombstones(client_id: str, subject: Subject) -> dict[str, int]:
    """The hashes of the subject's forms and their word counts."""
    forms = {w for w in map(words, subject.forms()) if w}
    return {form_hash(client_id, f): len(f) for f in forms}


def _body(payload: Mapping[str, Any]) -> tuple[str, str | None, ErasureMode]:
    receipt, key, mode = payload.get("receipt"), payload.get("key"), payload.get("mode")
    if not isinstance(receipt, str) or mode not in {m.value for m in ErasureMode}:
        raise ValidationError("unreadable erasure job payload")
    return receipt, key if isinstance(key, str) else None, ErasureMode(str(mode))


def erasure_runner(store: ErasureStore, receipts: ReceiptBook) -> TaskRunner:
    """The runner of erasure jobs; re-embedding goes through the job's embedder."""

    async def run(task: TaskRun) -> JobStatus:
        receipt_id, key, mode = _body(task.payload)
        receipt = await receipts.get(receipt_id)
        if receipt is None or receipt.status is ReceiptStatus.DONE or key is None:
            return JobStatus.INDEXED
        await task.stage(JobStage.STORING)
        ports = ErasurePorts(store, receipts, task.ingest.embedder)
        client = task.job.scope.client_id
        await erase_subject(client, key, mode, receipt_id, ports, priority=task.job.priority)
        return JobStatus.INDEXED

    return run
