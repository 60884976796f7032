"""The reads of the queue as every face makes them: one job (GraphQL ``ingestionStatus``,
MCP ``job_status``), a page of jobs (``jobs``, ``list_jobs``), and the live subscriptions
``ingestionProgress`` and ``queueStatus`` (``resolvers/queue/``).

Jobs are read at the caller's own scope: no face narrows it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Final

from kenning.domain.access.caller import CallerScope
from kenning.domain.errors import ValidationError
from kenning.domain.queue.event_hub import EventHub
from kenning.domain.queue.jobs import Job, JobFilter, JobOrder, JobPage
from kenning.domain.queue.listing import list_jobs
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.progress import PositionWatch, watch_progress
from kenning.domain.queue.status_feed import QueueStatus, StatusFeeds

MAX_STATUS_FIRST: Final = 200


@dataclass(frozen=True, slots=True)
class JobPorts:
    """The job store, the live feeds and how often a quiet subscription re-reads its job."""

    queue: JobQueue
    hub: EventHub
    positions: PositionWatch
    feeds: StatusFeeds
    refresh_seconds: float


@dataclass(frozen=True, slots=True)
class JobsAsk:
    """A page of jobs: which, how many, after which cursor, in which order."""

    where: JobFilter = field(default_factory=JobFilter)
    first: int = 50
    after: str | None = None
    order: JobOrder = JobOrder.NEWEST


async def visible_job(caller: CallerScope, job_id: str, ports: JobPorts) -> Job | None:
    """The job with this id if the caller may see it."""
    return await ports.queue.get(job_id, caller.reading(None))


async def jobs_page(caller: CallerScope, ask: JobsAsk, ports: JobPorts) -> JobPage:
    """One page of the jobs the caller may see (``listing.list_jobs`` checks the bounds)."""
    reader = caller.reading(None)
    return await list_jobs(ports.queue, reader, ask.where, ask.first, ask.after, ask.order)


async def job_progress(
    caller: CallerScope, job_id: str, ports: JobPorts
) -> AsyncGenerator[Job, None]:
    """The job now, then each change (and new place while it waits), until it is final."""
    reader = caller.reading(None)
    watch = watch_progress(
        job_id, reader, ports.queue, ports.hub, ports.positions, ports.refresh_seconds
    )
    # Closed with this generator, so a gone subscriber leaves the hub at once.
    async with aclosing(watch) as jobs:
        async for job in jobs:
            yield job


async def queue_status(
    caller: CallerScope, first: int, ports: JobPorts
) -> AsyncGenerator[QueueStatus, None]:
    """A snapshot of the queue the caller may see (``first`` queued and running jobs), then
    an update after every change."""
    if not 0 <= first <= MAX_STATUS_FIRST:
        raise ValidationError(f"first must be 0..{MAX_STATUS_FIRST}", field="first")
    reader = caller.reading(None)
    async with aclosing(ports.feeds.watch(reader, first)) as updates:
        async for status in updates:
            yield status
