"""The claim query honours the pure order: priorities, explicit positions, FIFO ties, due
times; reorder and prioritize move jobs where the UI asked."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from kenning.domain.queue.jobs import Lane, lane_of
from kenning.domain.queue.order import QueueEntry, next_claim
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.queue_api import request

pytestmark = pytest.mark.integration

MOVE = """mutation M($id: ID!, $position: Int!) {
  reorderQueueItem(jobId: $id, position: $position) {
    __typename ... on IngestionJob { position priority } } }"""
FRONT = """mutation F($id: ID!) { prioritizeQueueItem(jobId: $id) {
    __typename ... on IngestionJob { position priority } } }"""


async def insert(pool: asyncpg.Pool, entries: list[QueueEntry]) -> None:
    await pool.executemany(
        """INSERT INTO ingestion_jobs (id, idempotency_key, status, lane, priority,
               queue_position, created_at, next_attempt_at, payload)
           VALUES ($1, $1, 'QUEUED', $2, $3, $4, $5, $6, '{}'::jsonb)""",
        [
            (e.id, lane_of(e.priority).value, e.priority, e.queue_position, e.created_at,
             e.next_attempt_at)
            for e in entries
        ],
    )  # fmt: skip


async def claim_all(runtime: Runtime, lane: Lane) -> list[str]:
    order: list[str] = []
    for _ in range(1000):
        claimed = await runtime.queue.work.claim(lane, "test/1", 60)
        if claimed is None:
            return order
        order.append(claimed.job.id)
    raise AssertionError("the lane never emptied")


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_claims_follow_the_pure_order(
    qruntime: Runtime, queue_pool: asyncpg.Pool, seed: int
) -> None:
    rng = random.Random(seed)
    now = datetime.now(UTC)
    entries = [
        QueueEntry(
            id=f"job-{n:03d}",
            priority=rng.randint(0, 5),
            queue_position=rng.choice([None, None, 1, 2, 3]),
            created_at=now - timedelta(seconds=rng.randint(0, 3)),
            next_attempt_at=rng.choice([None, None, None, now + timedelta(hours=1)]),
        )
        for n in range(60)
    ]
    await insert(queue_pool, entries)
    for lane in Lane:
        expected, left = [], list(entries)
        while (entry := next_claim(left, lane, now)) is not None:
            expected.append(entry.id)
            left.remove(entry)
        assert await claim_all(qruntime, lane) == expected


async def test_reorder_and_prioritize_change_what_is_claimed_next(
    qruntime: Runtime, qapi: Api
) -> None:
    handles = [await request(qapi, f"urn:o{n}") for n in range(5)]
    late = await request(qapi, "urn:late", priority=6)
    ids = [h["jobId"] for h in handles]
    moved = await qapi(MOVE, id=ids[4], position=2)
    assert moved["reorderQueueItem"] == {"__typename": "IngestionJob", "position": 2, "priority": 3}
    front = await qapi(FRONT, id=late["jobId"])
    assert front["prioritizeQueueItem"] == {
        "__typename": "IngestionJob",
        "position": 1,
        "priority": 3,  # took the priority of the jobs it now leads
    }
    claimed = await claim_all(qruntime, Lane.BULK)
    assert claimed == [late["jobId"], ids[0], ids[4], ids[1], ids[2], ids[3]]


async def test_only_queued_jobs_move(qruntime: Runtime, qapi: Api) -> None:
    handle = await request(qapi, "urn:busy")
    await qruntime.queue.work.claim(Lane.BULK, "test/1", 60)
    moved = await qapi(MOVE, id=handle["jobId"], position=1)
    assert moved["reorderQueueItem"]["__typename"] == "JobStateError"
