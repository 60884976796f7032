"""What a queued job may be: its task (payload key ``"task"``) and what the runner needs for
each.

    "ingest"   (or no "task": every payload written before tasks existed) one document;
               with ``"extraction": "LLM"`` the graph is extracted after it is stored
    "extract"  graph extraction of a stored source only (what a synchronous ``ingest``
               with LLM extraction enqueues)
    any other  a registered ``Preparer`` turns the payload into the ``IngestRequest`` the
               job then runs like "ingest" (``None``: nothing to keep, SKIPPED_DUPLICATE);
               or a registered ``TaskRunner`` runs the whole job (a file with its
               attachments, a crawl, a repository: many sources from one job)

Example: ``JobDeps(ingest=deps, preparers={"task_outcome": prepare_outcome})``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.extract_source import ExtractionDeps
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.queue.jobs import Job, JobStage, JobStatus, Lease

INGEST_TASK: Final = "ingest"
EXTRACT_TASK: Final = "extract"

# (payload, the job's scope, the job's current priority) -> the request to ingest, or None.
Preparer = Callable[[Mapping[str, Any], Scope, int], Awaitable[IngestRequest | None]]


class HeldStore(Protocol):
    """Wraps a store so that its writes commit only while the job's lease is held and its
    connection is not revoked, without ending the job (a write that extraction follows)."""

    def __call__(
        self, store: KnowledgeStore, lease: Lease, connection: tuple[str, str] | None
    ) -> KnowledgeStore: ...


@dataclass(frozen=True, slots=True)
class TaskRun:
    """What a ``TaskRunner`` gets for one claimed job.

    ``ingest`` carries the worker's ports, its store committing each write only while the
    job's lease is held (``JobDeps.held_store``) without ending the job; the runner returns
    the job's final status and the queue records it. A job re-run after a crash or a lost
    lease starts again from its payload, so a runner's writes must be idempotent (ingest
    skips a source whose content hash is stored). ``stage`` records what the job is doing
    and ``checkpoint`` renews the lease at most every third of it, raising
    ``LeaseLostError`` once the job is no longer this worker's (cancelled, expired): call
    it between units of work.
    """

    job: Job
    payload: Mapping[str, Any]
    ingest: IngestDeps
    stage: Callable[[JobStage], Awaitable[None]]
    checkpoint: Callable[[], Awaitable[None]]


TaskRunner = Callable[[TaskRun], Awaitable[JobStatus]]


@dataclass(frozen=True, slots=True)
class Upkeep:
    """Housekeeping every worker runs every ``every`` seconds beside its jobs (the file
    sweep); workers of many processes run it, so ``run`` must tolerate running at once."""

    name: str
    every: float
    run: Callable[[], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class JobDeps:
    """Everything a worker runs jobs with. ``extraction`` is ``None`` when no model is
    configured (a job asking for LLM extraction then fails with a clear error);
    ``held_store`` is ``None`` in unit tests (writes then go to the plain store)."""

    ingest: IngestDeps
    extraction: ExtractionDeps | None = None
    preparers: Mapping[str, Preparer] = field(default_factory=dict)
    runners: Mapping[str, TaskRunner] = field(default_factory=dict)
    held_store: HeldStore | None = None
    upkeep: tuple[Upkeep, ...] = ()
    # The lease a worker's claim gets (KENNING_QUEUE_LEASE_SECONDS): long model work checks
    # it is still held every third of it.
    lease_seconds: float = 30.0
    # How long a job whose model does not answer waits for it (KENNING_MODEL_WAIT_HOURS)
    # before it ends FAILED; it waits QUEUED with stage WAITING_FOR_MODEL meanwhile.
    model_wait_seconds: float = 24 * 3600.0
