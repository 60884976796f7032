"""Fan-out of job events and shared queue-status feeds, over a fake bus and reader."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.queue import status_feed as queue_status
from kenning.domain.queue.event_hub import EventHub, Inbox
from kenning.domain.queue.jobs import Job, JobEvent, JobStatus, Lane
from kenning.domain.queue.ports import RESYNC
from kenning.domain.queue.status_feed import QueueStatus, StatusFeeds
from tests.fakes.event_source import FakeBus
from tests.fakes.queue_reader import CountingReader

NOW = datetime(2026, 11, 21, tzinfo=UTC)


def event(job_id: str, client: str) -> JobEvent:
    job = Job(
        id=job_id, status=JobStatus.QUEUED, stage=None, lane=Lane.BULK, priority=3,
        scope=Scope(client), source_urn=None, connection_id=None, source_kind=None,
        source_id=None, content_version=None, attempts=0, next_attempt_at=None,
        last_error=None, version=1, created_at=NOW, updated_at=NOW,
    )  # fmt: skip
    return JobEvent(job, None)


def test_a_full_inbox_trades_its_backlog_for_one_resync() -> None:
    inbox = Inbox(size=3)
    for n in range(5):
        inbox.offer(event(f"j{n}", "acme"))
    backlog = inbox.drain()
    assert backlog[0] is RESYNC  # j0..j3 were dropped: the reader must re-read state
    assert [m.job.id for m in backlog[1:] if isinstance(m, JobEvent)] == ["j4"]


async def next_status(stream: AsyncIterator[QueueStatus]) -> QueueStatus:
    return await asyncio.wait_for(anext(stream), 5)


async def test_subscribers_of_one_scope_share_snapshots_and_see_only_their_changes() -> None:
    bus, reader = FakeBus(), CountingReader()
    hub = EventHub(bus)
    feeds = StatusFeeds(hub, reader, refresh=60)
    one = feeds.watch(Scope("acme"), 10)
    two = feeds.watch(Scope("acme"), 10)
    assert (await next_status(one)).changes == ()
    assert (await next_status(two)).changes == ()
    assert reader.reads == 1
    await bus.queue.put(event("other", "globex"))  # invisible: no new snapshot
    await bus.queue.put(event("mine", "acme"))
    first, second = await next_status(one), await next_status(two)
    assert [e.job.id for e in first.changes] == ["mine"] == [e.job.id for e in second.changes]
    assert reader.reads == 2
    await bus.queue.put(RESYNC)
    healed = await next_status(one)
    assert healed.resynced and healed.changes == ()
    await one.aclose()
    await two.aclose()
    await feeds.aclose()
    await hub.aclose()


async def test_with_the_bus_down_a_degraded_snapshot_comes_at_once_then_polls_until_live(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(queue_status, "DEGRADED_POLL", 0.05)
    bus, reader = FakeBus(ready=False), CountingReader()
    hub = EventHub(bus)
    feeds = StatusFeeds(hub, reader, refresh=60)
    stream = feeds.watch(Scope("acme"), 10)
    loop = asyncio.get_running_loop()
    started = loop.time()
    first = await next_status(stream)
    assert first.degraded and not first.resynced
    assert loop.time() - started < 1.0  # a bus that says it is down is not waited for
    # Polled while down: each changed snapshot reaches the subscriber, still degraded.
    reader.workers = ("w1", "w2")
    polled = await next_status(stream)
    assert polled.degraded and polled.snapshot.workers == ("w1", "w2")
    reads = reader.reads
    bus.ready = True
    live = await next_status(stream)
    assert not live.degraded and live.resynced
    assert reader.reads > reads
    await bus.queue.put(event("mine", "acme"))  # and events flow again
    update = await next_status(stream)
    assert [e.job.id for e in update.changes] == ["mine"] and not update.degraded
    await stream.aclose()
    await feeds.aclose()
    await hub.aclose()


async def test_a_bus_lost_while_a_burst_is_gathered_is_reported_degraded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(queue_status, "QUIET", 0.2)
    bus, reader = FakeBus(), CountingReader()
    hub = EventHub(bus)
    feeds = StatusFeeds(hub, reader, refresh=60, min_interval=0.3)
    stream = feeds.watch(Scope("acme"), 10)
    assert not (await next_status(stream)).degraded
    await bus.queue.put(event("mine", "acme"))
    await asyncio.sleep(0.01)  # the feed now gathers the burst (QUIET), for up to 0.3 s
    await bus.queue.put(event("also-mine", "acme"))
    bus.ready = False
    update = await next_status(stream)
    assert update.degraded and update.changes == ()
    await stream.aclose()
    await feeds.aclose()
    await hub.aclose()
