"""``ingestionProgress``: one job's changes as they happen, until a terminal status.

While a job waits, its place in the lane changes whenever a job ahead of it is claimed,
cancelled, moved or requeued: events about *other* jobs. ``PositionWatch`` recomputes the
places of every job this process's subscribers wait on in one query per batch of such
events (at most one query per ``POSITION_INTERVAL``), so its cost follows the rate of queue
changes, not the number of subscribers, and hands each subscriber its job's new place.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError
from kenning.domain.queue.event_hub import EventHub, Inbox, InboxMessage, JobPosition
from kenning.domain.queue.jobs import Job, JobEvent, JobStatus, Lane
from kenning.domain.queue.ports import Resync
from kenning.domain.queue.status_feed import BUS_WAIT, DEGRADED_POLL

logger = logging.getLogger("kenning.queue")

MAX_UPDATES = 100_000
POSITION_INTERVAL = 0.25
# Without events there is nothing to recompute; the wait only bounds an idle loop.
_IDLE_WAIT = 60.0
_STOP_WAIT = 1.0


class JobReader(Protocol):
    """One job as a reader may see it (``JobQueue.get``)."""

    async def get(self, job_id: str, reader: Scope) -> Job | None:
        """The job with its queue position when queued, or ``None`` when not visible."""
        ...


class PositionReader(Protocol):
    """Places of queued jobs; storage implements it."""

    async def positions(self, job_ids: Collection[str]) -> list[JobPosition]:
        """The rank in its lane of each of these jobs that is QUEUED; others are left out."""
        ...


@dataclass(eq=False, slots=True)
class Spot:
    """One subscriber's watched job, as last shown to it."""

    job_id: str
    inbox: Inbox
    # Unknown until the job is read: until then every lane's changes count.
    lane: Lane | None = None
    waiting: bool = True
    shown: int | None = None

    def follow(self, job: Job) -> None:
        """Remember the job the subscriber was just sent."""
        self.lane, self.waiting, self.shown = job.lane, job.status is JobStatus.QUEUED, job.position


def moved_lanes(batch: Sequence[InboxMessage]) -> set[Lane]:
    """Lanes where a job entered or left the queue or moved in it; every lane on RESYNC."""
    lanes: set[Lane] = set()
    for message in batch:
        if isinstance(message, Resync):
            return set(Lane)
        if isinstance(message, JobEvent) and JobStatus.QUEUED in (
            message.job.status,
            message.previous,
        ):
            lanes.add(message.job.lane)
    return lanes


class PositionWatch:
    """The places of the waiting jobs of this process's ``ingestionProgress`` subscribers.

    Listens to the bus while anyone watches; each batch of events that moves a lane costs
    one ``PositionReader.positions`` call for all watched jobs of the lanes it moved.
    """

    def __init__(
        self, hub: EventHub, reader: PositionReader, interval: float = POSITION_INTERVAL
    ) -> None:
        self._hub, self._reader, self._interval = hub, reader, interval
        self._spots: set[Spot] = set()
        self._task: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()

    @asynccontextmanager
    async def watch(self, job_id: str, inbox: Inbox) -> AsyncIterator[Spot]:
        """Offer ``inbox`` a ``JobPosition`` each time the job's place changes while it
        waits, from the moment this returns."""
        spot = Spot(job_id, inbox)
        self._spots.add(spot)
        try:
            if self._task is None or self._task.done():
                self._listening = asyncio.Event()
                run = self._run(self._listening)
                self._task = asyncio.create_task(run, name="kenning-position-watch")
            await self._listening.wait()
            yield spot
        finally:
            self._spots.discard(spot)
            if not self._spots and self._task is not None:
                task, self._task = self._task, None
                task.cancel()
                # Bounded: a leaving subscriber never hangs on the listener's end.
                await asyncio.wait({task}, timeout=_STOP_WAIT)

    async def _run(self, listening: asyncio.Event) -> None:
        try:
            async with self._hub.subscribe(wait=BUS_WAIT) as events:
                listening.set()
                await self._follow(events)
        finally:
            listening.set()  # never leave a watcher waiting on a listener that failed

    async def _follow(self, events: Inbox) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time() - self._interval
        # A listener that is no longer the watch's own ends at its next wake-up, even if
        # its cancellation was lost.
        while asyncio.current_task() is self._task:
            first = await events.get(_IDLE_WAIT)
            if first is None:
                continue
            # Under a burst, what arrives within the interval shares one query.
            pause = self._interval - (loop.time() - last)
            if pause > 0:
                await asyncio.sleep(pause)
            lanes = moved_lanes([first, *events.drain()])
            if lanes:
                last = loop.time()
                await self._recompute(lanes)

    async def _recompute(self, lanes: set[Lane]) -> None:
        spots = [s for s in self._spots if s.waiting and (s.lane is None or s.lane in lanes)]
        if not spots:
            return
        try:
            found = await self._reader.positions({s.job_id for s in spots})
        except Exception:
            # Subscribers still re-read their job every refresh interval.
            logger.warning("queue.positions.read_failed", exc_info=True)
            return
        by_id = {p.job_id: p for p in found}
        for spot in spots:
            now = by_id.get(spot.job_id)
            if now is not None and now.position != spot.shown:
                spot.shown = now.position
                spot.inbox.offer(now)


def _is_news(newer: Job, shown: Job) -> bool:
    if newer.version != shown.version:
        return newer.version > shown.version
    return newer.status is JobStatus.QUEUED and newer.position != shown.position


async def watch_progress(
    job_id: str,
    reader: Scope,
    queue: JobReader,
    hub: EventHub,
    positions: PositionWatch,
    refresh: float = 5.0,
) -> AsyncGenerator[Job, None]:
    """The job now, then each newer version or new place of it; ends after a terminal status.

    Events can arrive out of order across processes, so each carries the row's version and
    older ones are dropped; a ``RESYNC`` or a quiet ``refresh`` interval re-reads the row,
    and while the bus is down the row is re-read every ``DEGRADED_POLL`` seconds.
    """
    async with hub.subscribe(wait=BUS_WAIT) as inbox, positions.watch(job_id, inbox) as spot:
        # Read after subscribing, so no change between the read and the first event is lost.
        job = await queue.get(job_id, reader)
        if job is None:
            raise NotFoundError(f"no visible job {job_id}", field="jobId")
        spot.follow(job)
        yield job
        for _ in range(MAX_UPDATES):
            if job.status.terminal:
                return
            message = await inbox.get(refresh if hub.ready else min(refresh, DEGRADED_POLL))
            newer: Job | None
            if isinstance(message, JobPosition):
                same = message.job_id == job_id and message.version == job.version
                newer = replace(job, position=message.position) if same else None
            elif isinstance(message, JobEvent):
                newer = message.job if message.job.id == job_id else None
                if newer is not None and newer.status is JobStatus.QUEUED:
                    # Events carry no position; a queued job is shown with its place.
                    newer = await queue.get(job_id, reader) or newer
            else:
                newer = await queue.get(job_id, reader)
                if newer is None:
                    return  # deleted, or no longer visible
            if newer is not None and _is_news(newer, job):
                job = newer
                spot.follow(job)
                yield job
