"""Ingestion jobs: statuses, stages, lanes, the idempotency identity and who may see a job.

    QUEUED ──claim──▶ RUNNING(CHUNKING → EMBEDDING → STORING) ──▶ INDEXED
       ▲                 │                                     ├─▶ SKIPPED_DUPLICATE
       └── retry later ──┘ (operational error, expired lease)  ├─▶ FAILED
                                                               └─▶ CANCELLED

A job that extracts the graph with a model runs EXTRACTING after STORING and ends there.

Errors a queue operation raises on purpose:

    KenningError
    ├── ConflictError
    │   ├── JobStateError          the job's status does not allow the operation
    │   └── LeaseLostError         a worker's lease on a job expired or was taken away
    └── OperationalError           storage was unreachable; the job is retried later
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ConflictError, KenningError, ValidationError
from kenning.domain.priorities import MAX_PRIORITY, PRIORITY_LANE_MAX


class JobStatus(StrEnum):
    """Where a job is in its lifecycle."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    INDEXED = "INDEXED"
    SKIPPED_DUPLICATE = "SKIPPED_DUPLICATE"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"

    @property
    def terminal(self) -> bool:
        """True for statuses a job never leaves on its own."""
        return self in TERMINAL


TERMINAL: Final = frozenset(
    {JobStatus.INDEXED, JobStatus.SKIPPED_DUPLICATE, JobStatus.FAILED, JobStatus.CANCELLED}
)


class JobStage(StrEnum):
    """What a RUNNING job is doing."""

    CHUNKING = "CHUNKING"
    EMBEDDING = "EMBEDDING"
    STORING = "STORING"
    # After STORING when a model extracts the graph (and alone for an "extract" job).
    EXTRACTING = "EXTRACTING"
    # Reading what a registered task runner ingests: a file, web pages, a repository.
    READING = "READING"
    # Not running: QUEUED again because its model did not answer (the backend's error is
    # ``last_error``, the next try ``next_attempt_at``); it ends FAILED after
    # KENNING_MODEL_WAIT_HOURS of waiting.
    WAITING_FOR_MODEL = "WAITING_FOR_MODEL"


class Lane(StrEnum):
    """Each lane has its own worker slots, so bulk work never delays agents' writes."""

    PRIORITY = "PRIORITY"
    BULK = "BULK"


class HandleStatus(StrEnum):
    """What ``requestIngestion`` did with a request."""

    QUEUED = "QUEUED"
    DUPLICATE = "DUPLICATE"
    SKIPPED = "SKIPPED"


def lane_of(priority: int) -> Lane:
    """The lane of a priority. Example: ``lane_of(1) is Lane.PRIORITY``."""
    return Lane.PRIORITY if priority <= PRIORITY_LANE_MAX else Lane.BULK


def lane_bounds(lane: Lane) -> tuple[int, int]:
    """Lowest and highest priority of a lane, inclusive."""
    if lane is Lane.PRIORITY:
        return 0, PRIORITY_LANE_MAX
    return PRIORITY_LANE_MAX + 1, MAX_PRIORITY


class JobStateError(ConflictError):
    """The job's status does not allow the operation."""

    def __init__(self, message: str, status: JobStatus) -> None:
        super().__init__(message)
        self.status = status


class LeaseLostError(ConflictError):
    """This worker no longer holds the job (its lease expired, or the job was cancelled)."""


class OperationalError(KenningError):
    """Storage or another backend was unreachable; worth retrying later."""


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class IngestionIdentity:
    """What makes two requests the same work: the source and the version of its content.

    Example: ``IngestionIdentity("drive", "file-17", "etag-42")``.
    """

    source_kind: str
    source_id: str
    content_version: str

    def __post_init__(self) -> None:
        for name, value, limit in (
            ("sourceKind", self.source_kind, 200),
            ("sourceId", self.source_id, 2048),
            ("contentVersion", self.content_version, 200),
        ):
            if not value.strip() or len(value) > limit or any(ord(c) < 32 for c in value):
                raise ValidationError(f"{name} must be 1..{limit} printable characters", field=name)

    @property
    def key(self) -> str:
        """The idempotency key (a digest, so long ids index cheaply)."""
        return _digest(self.source_kind, self.source_id, self.content_version)

    @property
    def source_key(self) -> str:
        """The source without its version: jobs of one source share it."""
        return _digest(self.source_kind, self.source_id)


@dataclass(frozen=True, slots=True)
class Job:
    """An ingestion job as stored (``position`` is its 1-based rank in its lane's queue)."""

    id: str
    status: JobStatus
    stage: JobStage | None
    lane: Lane
    priority: int
    scope: Scope
    source_urn: str | None
    connection_id: str | None
    source_kind: str | None
    source_id: str | None
    content_version: str | None
    attempts: int
    next_attempt_at: datetime | None
    last_error: str | None
    version: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None
    queue_position: int | None = None
    position: int | None = None
    waiting_for_model_since: datetime | None = None


@dataclass(frozen=True, slots=True)
class Lease:
    """A worker's claim on one job; every write about the job names it."""

    job_id: str
    owner: str


@dataclass(frozen=True, slots=True)
class JobEvent:
    """One committed change of a job, as published to every process."""

    job: Job
    previous: JobStatus | None


@dataclass(frozen=True, slots=True)
class EnqueueResult:
    """What ``requestIngestion`` answers."""

    job_id: str
    status: HandleStatus
    position: int | None


@dataclass(frozen=True, slots=True)
class JobFilter:
    """Which jobs a listing returns; ``None`` means any."""

    statuses: frozenset[JobStatus] | None = None
    lane: Lane | None = None
    connection_id: str | None = None
    source_urn: str | None = None


class JobOrder(StrEnum):
    """How a listing of jobs is sorted."""

    NEWEST = "NEWEST"
    # The order workers claim queued jobs in: the priority lane first, then each lane's
    # order (priority, moves, age). Only QUEUED jobs have one.
    CLAIM_ORDER = "CLAIM_ORDER"


@dataclass(frozen=True, slots=True)
class JobPage:
    """One page of jobs, newest first, and the cursor after its last one."""

    jobs: tuple[Job, ...]
    end_cursor: str | None
    has_next_page: bool
