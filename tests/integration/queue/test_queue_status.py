"""queueStatus in process: snapshot then updates, scoped to the subscriber; a Redis blip is
healed by a fresh snapshot."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.graphql_api import Api
from tests.support.queue_api import agent, close_runtime, open_runtime, request, subscribe
from tests.support.tcp_relay import TcpRelay

pytestmark = pytest.mark.integration

QUEUE_STATUS = """subscription S($first: Int!) { queueStatus(first: $first) {
  counts { status lane count }
  queued { id status position lane sourceUrn }
  running { id stage }
  workersAlive workers resynced changesDropped degraded
  changes { jobId status previousStatus stage lane version } } }"""


async def next_update(stream: AsyncIterator[dict[str, Any]], within: float = 10) -> Any:
    data = await asyncio.wait_for(anext(stream), within)
    return data["queueStatus"]


async def next_change(stream: AsyncIterator[dict[str, Any]]) -> Any:
    """The next update carrying changes (periodic refreshes carry none)."""
    for _ in range(10):
        update = await next_update(stream)
        if update["changes"]:
            return update
    raise AssertionError("no change arrived")


async def test_snapshot_then_an_update_per_change_of_the_subscribers_own_jobs(
    qruntime: Runtime,
) -> None:
    acme, globex = Api(qruntime, agent("acme")), Api(qruntime, agent("globex"))
    stream = subscribe(acme, QUEUE_STATUS, first=5)
    first = await next_update(stream)
    assert (first["queued"], first["changes"], first["degraded"]) == ([], [], False)
    # Every lane and status is counted, zero included.
    assert len(first["counts"]) == 12 and {c["count"] for c in first["counts"]} == {0}
    handle = await request(acme, "urn:mine")
    update = await next_change(stream)
    assert [(c["jobId"], c["status"], c["previousStatus"]) for c in update["changes"]] == [
        (handle["jobId"], "QUEUED", None)
    ]
    assert [c for c in update["counts"] if c["count"]] == [
        {"status": "QUEUED", "lane": "BULK", "count": 1}
    ]
    assert [(q["id"], q["position"]) for q in update["queued"]] == [(handle["jobId"], 1)]
    await request(globex, "urn:theirs")
    await request(acme, "urn:mine-too")
    update = await next_change(stream)
    # The other client's job never shows, though it is ahead in the lane (position 2).
    assert [c["status"] for c in update["changes"]] == ["QUEUED"]
    assert [(q["sourceUrn"], q["position"]) for q in update["queued"]] == [
        ("urn:mine", 1),
        ("urn:mine-too", 3),
    ]
    await stream.aclose()


async def test_workers_and_transitions_show_up(qruntime: Runtime, qapi: Api) -> None:
    stream = subscribe(qapi, QUEUE_STATUS, first=5)
    await next_update(stream)
    workers = await qruntime.queue.start_workers(qruntime.job_deps(), 1)
    handle = await request(qapi, "urn:watched")
    statuses: list[tuple[str, str | None]] = []
    for _ in range(20):
        update = await next_update(stream)
        statuses += [(c["status"], c["stage"]) for c in update["changes"]]
        if ("INDEXED", None) in statuses:
            break
    assert statuses[0] == ("QUEUED", None) and statuses[-1] == ("INDEXED", None)
    assert ("RUNNING", "STORING") in statuses
    assert update["workers"] == [workers[0].id] and update["workersAlive"] == 1
    await stream.aclose()
    assert handle["status"] == "QUEUED"


async def test_a_redis_blip_is_healed_by_a_fresh_snapshot(
    queue_settings: Settings, queue_pool: asyncpg.Pool, queue_clean: None
) -> None:
    redis_host, redis_port = (
        "127.0.0.1",
        int(queue_settings.redis_url.rsplit(":", 1)[1].split("/")[0]),
    )
    relay = TcpRelay(redis_host, redis_port)
    await relay.start()
    db = queue_settings.redis_url.rsplit("/", 1)[1]
    # No periodic refresh here: only the reconnect may bring the missed job.
    through_relay = queue_settings.model_copy(
        update={
            "redis_url": f"redis://127.0.0.1:{relay.port}/{db}",
            "queue_status_refresh_seconds": 120.0,
        }
    )
    watcher = await open_runtime(through_relay, queue_pool)
    writer = await open_runtime(queue_settings, queue_pool)
    try:
        stream = subscribe(Api(watcher), QUEUE_STATUS, first=5)
        assert (await next_update(stream))["queued"] == []
        await relay.stop()
        await asyncio.sleep(0.3)
        missed = await request(Api(writer), "urn:during-the-blip")
        await asyncio.sleep(0.3)
        await relay.start()
        # While Redis is away the feed may poll (degraded); the first live update after
        # the reconnect is a fresh snapshot.
        healed = await next_update(stream, within=15)
        while healed["degraded"]:
            healed = await next_update(stream, within=15)
        assert healed["resynced"] is True
        assert healed["changes"] == []  # the event itself was lost...
        assert [q["id"] for q in healed["queued"]] == [missed["jobId"]]  # ...not the truth
        await stream.aclose()
    finally:
        await relay.stop()
        await close_runtime(watcher)
        await close_runtime(writer)


async def test_a_project_move_reaches_open_feeds_at_once(qruntime: Runtime) -> None:
    writer = Api(qruntime, agent("acme"))
    group_one = Api(
        qruntime, Principal(key_id="g1-ui", scope=Scope("acme", "", "g1"), role=Role.UI)
    )
    moving = {"clientId": "acme", "projectId": "p3", "groupId": "g2"}
    handle = await request(writer, "urn:moving", scope=moving)
    stream = subscribe(group_one, QUEUE_STATUS, first=5)
    assert (await next_update(stream))["queued"] == []
    assert await qruntime.project_groups.move("acme", "p3", "g1") == "g2"
    assert await qruntime.queue.bus.publish_resync()  # what `kenning projects move` sends
    # The feed re-reads at once (a RESYNC), not at its next periodic refresh.
    update = await next_update(stream, within=5)
    assert update["resynced"] is True
    assert [q["id"] for q in update["queued"]] == [handle["jobId"]]
    await stream.aclose()
