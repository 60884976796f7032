"""The ports of the ingestion queue; storage implements them, unit tests fake them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from kenning.domain.access.scope import NO_GROUPS, ProjectGroups, Scope
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.queue.jobs import (
    EnqueueResult,
    IngestionIdentity,
    Job,
    JobEvent,
    JobFilter,
    JobOrder,
    JobPage,
    JobStage,
    JobStatus,
    Lane,
    Lease,
)


@dataclass(frozen=True, slots=True)
class NewJob:
    """A job to enqueue; ``payload`` is the stored request (see ``job_payload``)."""

    identity: IngestionIdentity
    scope: Scope
    priority: int
    source_urn: str
    connection_id: str | None
    payload: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    """A job a worker now holds, with its lease and stored request."""

    job: Job
    lease: Lease
    payload: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class QueueCount:
    """How many jobs of one lane are in one status."""

    status: JobStatus
    lane: Lane
    count: int


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """The queue as one reader may see it; ``workers`` is ``None`` when unknown."""

    at: datetime
    counts: tuple[QueueCount, ...]
    queued: tuple[Job, ...]
    running: tuple[Job, ...]
    workers: tuple[str, ...] | None
    # The reader's client's project groups when the snapshot was read: which job events
    # the reader may see until the next one (the same rule as the snapshot's SQL).
    groups: ProjectGroups = NO_GROUPS


class Resync:
    """Events may have been missed (a Redis reconnect, a lagging reader): re-read state."""

    def __repr__(self) -> str:
        return "RESYNC"


RESYNC = Resync()
BusMessage = JobEvent | Resync


class JobQueue(Protocol):
    """Requests, reads and control of jobs (what the API does)."""

    async def enqueue(self, job: NewJob) -> EnqueueResult:
        """Queue a job unless its identity is in flight (DUPLICATE) or indexed (SKIPPED)."""
        ...

    async def get(self, job_id: str, reader: Scope) -> Job | None:
        """A job the reader may see, with its queue position when queued."""
        ...

    async def page(
        self,
        reader: Scope,
        where: JobFilter,
        first: int,
        after: str | None,
        order: JobOrder = JobOrder.NEWEST,
    ) -> JobPage:
        """Visible jobs in ``order`` after an opaque cursor; queued ones with positions."""
        ...

    async def cancel_matching(self, writer: Scope, where: JobFilter, limit: int) -> list[Job]:
        """Cancel up to ``limit`` QUEUED or RUNNING jobs written at ``writer``'s scope or
        narrower that match ``where``; return them."""
        ...

    async def cancel_purged(
        self, scope: Scope, *, source_urn: str | None = None, connection_id: str | None = None
    ) -> int:
        """``PurgedJobs.cancel_purged``: a purge's cancel."""
        ...

    async def cancel(self, job_id: str) -> Job:
        """QUEUED or RUNNING → CANCELLED; raises ``JobStateError`` otherwise."""
        ...

    async def retry(self, job_id: str) -> Job:
        """FAILED, CANCELLED, or a QUEUED job waiting to retry → QUEUED and due now."""
        ...

    async def move(self, job_id: str, position: int) -> Job:
        """Move a QUEUED job to a 1-based position in its lane."""
        ...

    async def cancel_connection(self, client_id: str, connection_id: str) -> int:
        """Cancel a connection's QUEUED jobs; return how many."""
        ...


class WorkQueue(Protocol):
    """Claims and leases (what workers do). A lost lease raises ``LeaseLostError``."""

    async def claim(self, lane: Lane, owner: str, lease_seconds: float) -> ClaimedJob | None:
        """Atomically take the next due job of the lane, or ``None``."""
        ...

    async def heartbeat(self, leases: Collection[Lease], lease_seconds: float) -> set[str]:
        """Extend leases; return the ids of jobs still held."""
        ...

    async def set_stage(self, lease: Lease, stage: JobStage) -> None:
        """Record the stage of a RUNNING job."""
        ...

    async def finish(self, lease: Lease, status: JobStatus, error: str | None = None) -> None:
        """End a RUNNING job with a terminal status."""
        ...

    async def retry_later(
        self, lease: Lease, error: str, delay: float, *, for_model: bool = False
    ) -> None:
        """Back to QUEUED, due after ``delay`` seconds, one more attempt counted;
        ``for_model``: its model did not answer (stage ``WAITING_FOR_MODEL``, the wait's
        start kept from the first such retry)."""
        ...

    async def release(self, lease: Lease) -> None:
        """Back to QUEUED at once (a worker shutting down)."""
        ...

    async def recover_expired(self) -> int:
        """Jobs whose lease expired go back to QUEUED; return how many."""
        ...

    def bound_store(
        self,
        store: KnowledgeStore,
        lease: Lease,
        outcome: Callable[[object], JobStatus],
        connection: tuple[str, str] | None,
    ) -> KnowledgeStore:
        """``store`` whose writes also end the job (``outcome`` of the write's result) in
        the same transaction, and refuse a revoked ``(client, connection)``."""
        ...


class QueueReader(Protocol):
    """The snapshot a ``queueStatus`` subscriber sees."""

    async def snapshot(self, reader: Scope, first: int) -> QueueSnapshot:
        """Counts, the first ``first`` queued jobs of each lane, running jobs, workers."""
        ...


class EventPublisher(Protocol):
    """Sends job events to every process."""

    async def publish(self, event: JobEvent) -> None:
        """Best effort: a lost event is healed by subscribers' next snapshot."""
        ...

    async def publish_many(self, events: Sequence[JobEvent]) -> None:
        """``publish`` for several events at once, in order."""
        ...


class EventSource(Protocol):
    """Receives every process's job events."""

    def messages(self) -> AsyncIterator[BusMessage]:
        """Events as they come; ``RESYNC`` after every (re)connection, until closed."""
        ...

    async def wait_ready(self, within: float) -> bool:
        """True once subscribed (events from now on are delivered)."""
        ...

    @property
    def ready(self) -> bool:
        """True while subscribed; False while the bus is unreachable."""
        ...
