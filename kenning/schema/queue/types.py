"""Types of the ingestion queue: handles, jobs, pages, queue status and control results."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.queue.jobs import HandleStatus, JobOrder, JobStage, JobStatus, Lane
from kenning.graphql.context import Info
from kenning.resolvers.sources.crawl_progress import job_files, job_progress
from kenning.schema.access.scope import ScopeInfo
from kenning.schema.errors import (
    ErasedSubject,
    Error,
    NotFoundError,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.extraction.errors import ModelUnavailable
from kenning.schema.sources.crawl_progress import CrawlProgress
from kenning.schema.sources.repository_progress import RepositoryProgress

strawberry.enum(JobStatus, description="Where a job is: QUEUED → RUNNING → a terminal status.")
strawberry.enum(
    JobStage,
    description="What a RUNNING job is doing; WAITING_FOR_MODEL: QUEUED again because its "
    "model did not answer (lastError says why, nextAttemptAt when it tries again).",
)
strawberry.enum(
    JobOrder,
    description="NEWEST: most recently requested first. CLAIM_ORDER: queued jobs in the "
    "order workers will take them (the PRIORITY lane first); QUEUED jobs only. A job "
    "waiting to retry (`nextAttemptAt` in the future) keeps its place but is skipped "
    "until it is due.",
)
strawberry.enum(Lane, name="QueueLane", description="PRIORITY: priority 0-2; BULK: 3 and up.")
strawberry.enum(
    HandleStatus,
    name="IngestionHandleStatus",
    description="QUEUED: a new job; DUPLICATE: the same identity is queued or running; "
    "SKIPPED: that version is already indexed.",
)


@strawberry.input(description="What makes two requests the same work.")
class IngestionIdentityInput:
    source_kind: str
    content_version: str = strawberry.field(description="An eTag, revision or content hash.")
    source_id: str | None = strawberry.field(
        default=None, description="Defaults to the input's sourceUrn."
    )


@strawberry.type(description="What requestIngestion did; `position` is the rank in the lane.")
class IngestionHandle:
    job_id: strawberry.ID
    status: HandleStatus
    position: int | None


async def _progress(root: IngestionJob, info: Info) -> CrawlProgress | None:
    return await job_progress(info, str(root.id), root.source_kind)


async def _files(root: IngestionJob, info: Info) -> RepositoryProgress | None:
    return await job_files(info, str(root.id), root.source_kind)


@strawberry.type(description="A durable ingestion job.")
class IngestionJob:
    id: strawberry.ID
    status: JobStatus
    stage: JobStage | None
    lane: Lane
    priority: int
    position: int | None = strawberry.field(
        description="1-based rank among the lane's queued jobs (QUEUED only)."
    )
    attempts: int = strawberry.field(description="Failed attempts so far (retried).")
    next_attempt_at: datetime | None
    last_error: str | None
    source_urn: str | None
    source_kind: str | None
    source_id: str | None
    content_version: str | None
    connection_id: str | None
    scope: ScopeInfo
    version: int = strawberry.field(description="Grows with every change of the job.")
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    waiting_for_model_since: datetime | None = strawberry.field(
        description="Since when its model has not answered (it ends FAILED after "
        "KENNING_MODEL_WAIT_HOURS); null when it never waited."
    )
    progress: CrawlProgress | None = strawberry.field(
        resolver=_progress,
        description="A crawl job's counts while it runs and a day after "
        "(null for other jobs, or when Redis cannot say).",
    )
    repository_progress: RepositoryProgress | None = strawberry.field(
        resolver=_files,
        description="A repository job's file counts while it runs and a day after "
        "(null for other jobs, or when Redis cannot say).",
    )


@strawberry.input(description="Which jobs to list; omitted fields match any.")
class JobFilterInput:
    statuses: list[JobStatus] | None = None
    lane: Lane | None = None
    connection_id: str | None = None
    source_urn: str | None = None


@strawberry.type(description="A page of jobs in the order asked; pass `endCursor` as `after`.")
class JobPage:
    nodes: list[IngestionJob]
    end_cursor: str | None
    has_next_page: bool


@strawberry.type(description="The job's status does not allow the operation.")
class JobStateError(Error):
    status: JobStatus


@strawberry.type(description="The connection was revoked; nothing more may be ingested with it.")
class ConnectionRevokedError(Error):
    connection_id: str


RequestIngestionResult = Annotated[
    IngestionHandle
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | ConnectionRevokedError
    | ErasedSubject
    | ModelUnavailable,
    strawberry.union("RequestIngestionResult"),
]


@strawberry.type(description="What cancelJobs cancelled.")
class CancelJobsSuccess:
    cancelled: int = strawberry.field(description="How many jobs were cancelled.")
    jobs: list[IngestionJob] = strawberry.field(
        description="The cancelled jobs, the first 500 of them (`cancelled` counts all)."
    )
    more: bool = strawberry.field(
        description="True when the call cancelled its maximum (10,000): call again to cancel "
        "any that remain."
    )


CancelJobsResult = Annotated[
    CancelJobsSuccess | ScopeError | ValidationError, strawberry.union("CancelJobsResult")
]
JobControlResult = Annotated[
    IngestionJob | NotFoundError | ScopeError | JobStateError | ValidationError,
    strawberry.union("JobControlResult"),
]


@strawberry.type(description="How many jobs of one lane are in one status (zero included).")
class QueueCount:
    status: JobStatus
    lane: Lane
    count: int


@strawberry.type(description="One committed change of a job.")
class JobChange:
    job_id: strawberry.ID
    status: JobStatus
    previous_status: JobStatus | None
    stage: JobStage | None
    lane: Lane
    attempts: int
    version: int
    at: datetime


@strawberry.type(description="The queue as the subscriber may see it, and what changed.")
class QueueStatus:
    at: datetime
    counts: list[QueueCount]
    queued: list[IngestionJob] = strawberry.field(
        description="The first queued jobs of each lane, in claim order."
    )
    running: list[IngestionJob]
    workers_alive: int | None = strawberry.field(description="Null when Redis cannot say.")
    workers: list[str]
    changes: list[JobChange] = strawberry.field(
        description="Changes since the previous update (empty in the first snapshot)."
    )
    changes_dropped: int = strawberry.field(
        description="Changes left out because this subscriber read too slowly."
    )
    resynced: bool = strawberry.field(
        description="True when events may have been missed (a reconnect): this is a fresh "
        "snapshot, not only the listed changes."
    )
    degraded: bool = strawberry.field(
        description="True while live updates are unavailable (Redis is unreachable): the "
        "snapshot is read from PostgreSQL every second instead, and `changes` stays empty. "
        "Live updates resume on their own; the first live update has `resynced` true."
    )
