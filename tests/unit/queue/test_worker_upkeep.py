"""A worker's upkeep over fakes: each runs every ``every`` seconds while the worker runs, one
that fails is logged and runs again the next round, and none runs once the worker stops."""

from __future__ import annotations

import asyncio

import pytest

from kenning.domain.queue.tasks import JobDeps, Upkeep
from kenning.domain.queue.worker import Worker, WorkerConfig
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.fakes.work_queue import FakeWorkQueue
from tests.fakes.worker_ports import InstantWakeup, SilentRegistry
from tests.support.ingest_deps import deps


async def test_upkeep_runs_every_round_survives_a_failure_and_stops_with_the_worker(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rounds: list[int] = []

    async def sweep() -> None:
        rounds.append(len(rounds) + 1)
        if len(rounds) == 2:
            raise ConnectionError("database away")

    jobs = JobDeps(ingest=deps(FakeStore(), FakeEmbedder()), upkeep=(Upkeep("sweep", 0.02, sweep),))
    worker = Worker(
        FakeWorkQueue(), jobs, InstantWakeup(), SilentRegistry(), WorkerConfig(idle_wait=0.01)
    )
    await worker.start()
    try:
        for _ in range(200):
            if len(rounds) >= 4:
                break
            await asyncio.sleep(0.01)
        assert worker.running  # the failed round did not end the upkeep's task
    finally:
        await worker.stop()
    assert rounds[:4] == [1, 2, 3, 4]
    assert any(r.message == "queue.upkeep.failed" for r in caplog.records)
    stopped_at = len(rounds)
    await asyncio.sleep(0.1)
    assert len(rounds) == stopped_at
