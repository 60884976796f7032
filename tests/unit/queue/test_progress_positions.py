"""Places of waiting jobs for ingestionProgress: one query per batch of queue changes for
every subscriber of a process, none for changes that move no queued job."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import AsyncExitStack, aclosing
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.queue.event_hub import EventHub, Inbox
from kenning.domain.queue.jobs import Job, JobEvent, JobStage, JobStatus, Lane
from kenning.domain.queue.ports import RESYNC
from kenning.domain.queue.progress import PositionWatch, watch_progress
from tests.fakes.event_source import FakeBus
from tests.fakes.job_reader import FakeLane, job

NOW = datetime(2026, 11, 21, tzinfo=UTC)
WATCHERS = 100


async def next_place(stream: AsyncGenerator[Job, None]) -> int | None:
    return (await asyncio.wait_for(anext(stream), 5)).position


async def test_every_subscriber_hears_its_new_place_from_one_query_per_burst() -> None:
    bus, bulk = FakeBus(), FakeLane(Lane.BULK, 150)
    hub = EventHub(bus)
    watch = PositionWatch(hub, bulk)
    watched = [j.id for j in bulk.queued[-WATCHERS:]]
    async with AsyncExitStack() as stack:
        streams = [
            await stack.enter_async_context(
                aclosing(watch_progress(i, Scope("acme"), bulk, hub, watch, refresh=60))
            )
            for i in watched
        ]
        assert [await next_place(s) for s in streams] == list(range(51, 151))
        for _ in range(10):  # ten jobs ahead of all of them are claimed at once
            await bus.queue.put(bulk.claim())
        assert [await next_place(s) for s in streams] == list(range(41, 141))
        assert bulk.position_reads == [WATCHERS]  # one query for all, not one each
        assert bulk.gets == WATCHERS  # only the first read of each job
    await hub.aclose()


async def test_changes_that_move_no_queued_job_cost_no_query() -> None:
    bus, bulk = FakeBus(), FakeLane(Lane.BULK, 3)
    hub = EventHub(bus)
    watch = PositionWatch(hub, bulk, interval=0.01)
    async with aclosing(watch_progress("BULK-2", Scope("acme"), bulk, hub, watch, 60)) as stream:
        assert await next_place(stream) == 3
        claimed = bulk.claim()
        await bus.queue.put(claimed)
        assert await next_place(stream) == 2
        assert bulk.position_reads == [1]
        running = replace(claimed.job, stage=JobStage.STORING)
        await bus.queue.put(JobEvent(running, JobStatus.RUNNING))  # a stage change
        await bus.queue.put(JobEvent(replace(running, status=JobStatus.INDEXED), None))
        await bus.queue.put(JobEvent(job("PRIORITY-0", Lane.PRIORITY), None))  # another lane
        await asyncio.sleep(0.2)
        assert bulk.position_reads == [1]
        await bus.queue.put(RESYNC)  # events may have been lost: every lane is recomputed
        await asyncio.sleep(0.2)
        assert bulk.position_reads == [1, 1]
    await hub.aclose()


async def test_a_reader_stopped_as_a_message_arrives_stops() -> None:
    # A watch stops its listener when the last subscriber leaves, often right as the job's
    # last event arrives; a lost cancellation left the leaving subscription hanging.
    inbox = Inbox()
    reader = asyncio.create_task(inbox.get(60))
    await asyncio.sleep(0.01)
    inbox.offer(RESYNC)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert inbox.drain() == [RESYNC]  # the message stays for whoever reads next
