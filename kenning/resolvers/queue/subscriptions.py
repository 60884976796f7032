"""Resolvers of the live queue: ``queueStatus`` and ``ingestionProgress``, through
``kenning.domain.queue.job_reads``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncGenerator
from contextlib import aclosing

import strawberry

from kenning.domain.queue import job_reads
from kenning.domain.queue.jobs import JobEvent
from kenning.domain.queue.status_feed import QueueStatus
from kenning.graphql.context import Info
from kenning.graphql.subscriptions.fan_out import direct_delivery
from kenning.resolvers.access.scope import caller
from kenning.resolvers.queue.jobs import to_job_type
from kenning.schema.queue import types as gql

_CONVERTED_KEPT = 64


class _Converted:
    """The GraphQL form of recent updates, built once for every subscriber that receives
    the very same update object (the feed shares it with all who keep up)."""

    def __init__(self) -> None:
        # The update is kept alongside, so its id cannot be reused while cached.
        self._recent: OrderedDict[int, tuple[QueueStatus, gql.QueueStatus]] = OrderedDict()

    def __call__(self, status: QueueStatus) -> gql.QueueStatus:
        hit = self._recent.get(id(status))
        if hit is not None and hit[0] is status:
            return hit[1]
        converted = to_status_type(status)
        self._recent[id(status)] = (status, converted)
        if len(self._recent) > _CONVERTED_KEPT:
            self._recent.popitem(last=False)
        return converted


_converted = _Converted()


def _change(event: JobEvent) -> gql.JobChange:
    job = event.job
    return gql.JobChange(
        job_id=strawberry.ID(job.id),
        status=job.status,
        previous_status=event.previous,
        stage=job.stage,
        lane=job.lane,
        attempts=job.attempts,
        version=job.version,
        at=job.updated_at,
    )


def to_status_type(status: QueueStatus) -> gql.QueueStatus:
    """The GraphQL form of one queue status update."""
    snap = status.snapshot
    return gql.QueueStatus(
        at=snap.at,
        counts=[gql.QueueCount(status=c.status, lane=c.lane, count=c.count) for c in snap.counts],
        queued=[to_job_type(job) for job in snap.queued],
        running=[to_job_type(job) for job in snap.running],
        workers_alive=len(snap.workers) if snap.workers is not None else None,
        workers=list(snap.workers or ()),
        changes=[_change(e) for e in status.changes],
        changes_dropped=status.changes_dropped,
        resynced=status.resynced,
        degraded=status.degraded,
    )


async def queue_status(info: Info, first: int = 20) -> AsyncGenerator[gql.QueueStatus, None]:
    """A snapshot of the queue the caller may see, then an update after every change."""
    updates = job_reads.queue_status(caller(info), first, info.context.runtime.job_ports())
    # Over graphql-transport-ws, an update whose result this subscription's cohort shares is
    # written to the socket directly (kenning/graphql/subscriptions/fan_out.py); any other is
    # yielded.
    deliver = direct_delivery()
    async with aclosing(updates) as feed:
        async for status in feed:
            update = _converted(status)
            if deliver is None or not await deliver(update):
                yield update


async def ingestion_progress(
    info: Info, job_id: strawberry.ID
) -> AsyncGenerator[gql.IngestionJob, None]:
    """The job now, then each change (and each new place while it waits), completing
    after a terminal status."""
    ports = info.context.runtime.job_ports()
    async with aclosing(job_reads.job_progress(caller(info), str(job_id), ports)) as jobs:
        async for job in jobs:
            yield to_job_type(job)
