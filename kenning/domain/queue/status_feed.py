"""Live queue status: one shared feed per (reader scope, size), many subscribers.

A feed reads a fresh snapshot after every batch of visible events (and on ``RESYNC`` or
every ``refresh`` seconds, for workers and due retries), then hands the same object to all
its subscribers. Snapshots therefore cost one query per change batch, not one per
subscriber, and a subscriber that reads slowly simply skips to the newest state while
keeping the list of changes it has not seen.

While the event bus (Redis) is unreachable the feed is *degraded*: it still sends a
snapshot at once, marked ``degraded``, and re-reads one every ``DEGRADED_POLL`` seconds;
once the bus is back it sends a fresh, live snapshot and follows events again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from kenning.domain.access.scope import NO_GROUPS, ProjectGroups, Scope
from kenning.domain.queue.event_hub import EventHub, Inbox, InboxMessage
from kenning.domain.queue.jobs import JobEvent
from kenning.domain.queue.ports import QueueReader, QueueSnapshot, Resync

logger = logging.getLogger("kenning.queue")

MAX_PENDING_CHANGES = 500
ERROR_PAUSE = 1.0
# A lone change goes out at once. One that comes within MIN_INTERVAL of the previous update
# belongs to a burst (a job's transitions follow each other closely): the feed gathers the
# burst until no change has come for QUIET seconds, at most until MIN_INTERVAL after the
# previous update, and sends it as one update. A burst therefore costs about as many
# updates as with a fixed MIN_INTERVAL window, but its changes wait for the burst's end
# rather than for the whole window.
MIN_INTERVAL = 0.25
QUIET = 0.03
MAX_UPDATES = 10**9
# How often a degraded feed re-reads the queue, and how long a new feed waits for a bus
# that neither answers nor refuses (one that refuses makes it start degraded at once).
DEGRADED_POLL = 1.0
BUS_WAIT = 5.0


@dataclass(frozen=True, slots=True)
class QueueStatus:
    """A snapshot plus the changes since the previous one a subscriber received."""

    snapshot: QueueSnapshot
    changes: tuple[JobEvent, ...] = ()
    resynced: bool = False
    changes_dropped: int = 0
    # True while the event bus is unreachable: the snapshot is polled, changes are empty.
    degraded: bool = False


@dataclass(slots=True, eq=False)
class _Mailbox:
    latest: QueueStatus | None = None
    changes: list[JobEvent] = field(default_factory=list)
    dropped: int = 0
    resynced: bool = False
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    # The feed's own object while it is the only one pending: every subscriber that keeps
    # up receives the same object, so its GraphQL form can be built once.
    shared: QueueStatus | None = None
    failure: BaseException | None = None

    def put(self, status: QueueStatus) -> None:
        self.shared = None if self.ready.is_set() else status
        self.latest = status
        self.changes.extend(status.changes)
        overflow = len(self.changes) - MAX_PENDING_CHANGES
        if overflow > 0:
            del self.changes[:overflow]
            self.dropped += overflow
        self.resynced = self.resynced or status.resynced
        self.ready.set()

    def fail(self, error: BaseException) -> None:
        self.failure = error
        self.ready.set()

    def take(self) -> QueueStatus:
        if self.failure is not None:
            raise self.failure
        assert self.latest is not None
        taken = self.shared or QueueStatus(
            self.latest.snapshot,
            tuple(self.changes),
            self.resynced,
            self.dropped,
            self.latest.degraded,
        )
        self.changes, self.dropped, self.resynced, self.shared = [], 0, False, None
        self.ready.clear()
        return taken


class _Feed:
    def __init__(self, hub: EventHub, reader: QueueReader, scope: Scope, first: int) -> None:
        self.hub, self.reader, self.scope, self.first = hub, reader, scope, first
        self.mailboxes: set[_Mailbox] = set()
        self.latest: QueueSnapshot | None = None
        self.degraded = False
        self.task: asyncio.Task[None] | None = None

    @property
    def _groups(self) -> ProjectGroups:
        return self.latest.groups if self.latest is not None else NO_GROUPS

    def join(self) -> _Mailbox:
        box = _Mailbox()
        if self.latest is not None:
            box.put(QueueStatus(self.latest, degraded=self.degraded))
        self.mailboxes.add(box)
        return box

    def stopped(self, task: asyncio.Task[None]) -> None:
        error = None if task.cancelled() else task.exception()
        for box in list(self.mailboxes):
            box.fail(error or RuntimeError("the queue status feed stopped"))

    async def run(self, refresh: float, min_interval: float) -> None:
        loop = asyncio.get_running_loop()
        async with self.hub.subscribe(wait=BUS_WAIT) as inbox:
            degraded = not self.hub.ready
            await self._send((), resynced=False, degraded=degraded)
            sent = loop.time()
            while True:
                first = await inbox.get(min(refresh, DEGRADED_POLL) if degraded else refresh)
                if degraded or not self.hub.ready:
                    # Polling: while the bus is down, and once more when it is back (the
                    # subscription is live again, so this snapshot misses nothing).
                    inbox.drain()
                    was, degraded = degraded, not self.hub.ready
                    await self._send((), resynced=was and not degraded, degraded=degraded)
                    sent = loop.time()
                    continue
                batch = [] if first is None else [first, *await _burst(inbox, sent + min_interval)]
                if not self.hub.ready:  # the bus went away during the pause: poll
                    degraded = True
                    await self._send((), resynced=False, degraded=True)
                    sent = loop.time()
                    continue
                resync = any(isinstance(m, Resync) for m in batch)
                visible = tuple(
                    m
                    for m in batch
                    if isinstance(m, JobEvent) and self.scope.can_see(m.job.scope, self._groups)
                )
                if batch and not visible and not resync:
                    continue  # only other readers' jobs changed
                await self._send(visible, resynced=resync, degraded=False)
                sent = loop.time()

    async def _send(self, changes: tuple[JobEvent, ...], *, resynced: bool, degraded: bool) -> None:
        for _ in range(1000):
            try:
                snapshot = await self.reader.snapshot(self.scope, self.first)
                break
            except Exception:  # the database blinked; try again shortly, bounded
                logger.warning("queue.status.snapshot_failed", exc_info=True)
                await asyncio.sleep(ERROR_PAUSE)
        else:
            raise RuntimeError("queue status snapshots keep failing")
        previous, self.latest = self.latest, snapshot
        was_degraded, self.degraded = self.degraded, degraded
        quiet = not (changes or resynced) and was_degraded == degraded
        if previous is not None and quiet and _same(previous, snapshot):
            return  # a periodic refresh that found nothing new: no message to anyone
        status = QueueStatus(snapshot, changes, resynced, degraded=degraded)
        for box in list(self.mailboxes):
            box.put(status)


async def _burst(inbox: Inbox, until: float) -> list[InboxMessage]:
    """The changes that follow closely, up to ``until`` (see ``QUIET``); none after it."""
    loop = asyncio.get_running_loop()
    gathered = inbox.drain()
    for _ in range(MAX_UPDATES):
        left = until - loop.time()
        if left <= 0:
            break
        message = await inbox.get(min(QUIET, left))
        if message is None:
            break  # quiet: the burst is over
        gathered += [message, *inbox.drain()]
    return gathered


def _same(one: QueueSnapshot, other: QueueSnapshot) -> bool:
    return dataclasses.replace(one, at=other.at) == other


class StatusFeeds:
    """Shared ``queueStatus`` feeds of one process."""

    def __init__(
        self,
        hub: EventHub,
        reader: QueueReader,
        refresh: float = 5.0,
        min_interval: float = MIN_INTERVAL,
    ) -> None:
        self._hub = hub
        self._reader = reader
        self._refresh = refresh
        self._min_interval = min_interval
        self._feeds: dict[tuple[Scope, int], _Feed] = {}

    async def watch(self, scope: Scope, first: int) -> AsyncGenerator[QueueStatus, None]:
        """The snapshot now, then one update per change batch, until the caller stops."""
        key = (scope, first)
        feed = self._feeds.get(key)
        if feed is None:
            feed = self._feeds[key] = _Feed(self._hub, self._reader, scope, first)
        box = feed.join()
        if feed.task is None or feed.task.done():
            run = feed.run(self._refresh, self._min_interval)
            feed.task = asyncio.create_task(run, name="kenning-queue-feed")
            feed.task.add_done_callback(feed.stopped)
        try:
            for _ in range(MAX_UPDATES):
                await box.ready.wait()
                yield box.take()
        finally:
            feed.mailboxes.discard(box)
            if not feed.mailboxes and self._feeds.get(key) is feed:
                del self._feeds[key]
                await _stop(feed.task)

    async def aclose(self) -> None:
        feeds, self._feeds = list(self._feeds.values()), {}
        for feed in feeds:
            await _stop(feed.task)


async def _stop(task: asyncio.Task[None] | None) -> None:
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
