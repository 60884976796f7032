"""``ingestionProgress``: one job's changes as they happen, until a terminal status."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from kenning.domain.errors import NotFoundError
from kenning.domain.event_hub import EventHub
from kenning.domain.jobs import Job, JobEvent, JobStatus
from kenning.domain.queue_ports import JobQueue
from kenning.domain.queue_status import BUS_WAIT, DEGRADED_POLL
from kenning.domain.scope import Scope

MAX_UPDATES = 100_000


async def watch_progress(
    job_id: str, reader: Scope, queue: JobQueue, hub: EventHub, refresh: float = 5.0
) -> AsyncGenerator[Job, None]:
    """The job now, then each newer version of it; ends after a terminal status.

    Events can arrive out of order across processes, so each carries the row's version and
    older ones are dropped; a ``RESYNC`` or a quiet ``refresh`` interval re-reads the row,
    and while the bus is down the row is re-read every ``DEGRADED_POLL`` seconds.
    """
    async with hub.subscribe(wait=BUS_WAIT) as inbox:
        # Read after subscribing, so no change between the read and the first event is lost.
        job = await queue.get(job_id, reader)
        if job is None:
            raise NotFoundError(f"no visible job {job_id}", field="jobId")
        yield job
        for _ in range(MAX_UPDATES):
            if job.status.terminal:
                return
            message = await inbox.get(refresh if hub.ready else min(refresh, DEGRADED_POLL))
            newer: Job | None
            if isinstance(message, JobEvent):
                newer = message.job if message.job.id == job_id else None
                if newer is not None and newer.status is JobStatus.QUEUED:
                    # Events carry no position; a queued job is shown with its place.
                    newer = await queue.get(job_id, reader) or newer
            else:
                newer = await queue.get(job_id, reader)
                if newer is None:
                    return  # deleted, or no longer visible
            if newer is not None and newer.version > job.version:
                job = newer
                yield job
