"""Crash safety: 2,000 queued documents, the worker process killed with SIGKILL at random
moments three times and restarted; every document ends INDEXED exactly once, with exactly
the chunks a clean run produces (same ids, none missing, none doubled)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.chunking import chunk
from kenning.domain.queue.jobs import IngestionIdentity
from kenning.domain.queue.requests import request_ingestion
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.queue_api import close_runtime, open_runtime
from tests.support.server_process import server_env

pytestmark = pytest.mark.integration

DOCUMENTS = 2000
KILLS = 3
SCOPE = Scope("crash")
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "mu"]  # fmt: skip


def content(n: int) -> str:
    rng = random.Random(n)
    paragraphs = []
    for p in range(n % 4 + 1):
        words = " ".join(rng.choice(WORDS) for _ in range(60))
        paragraphs.append(f"Document {n} part {p} mentions service:s{n % 50}. {words}.")
    return "\n\n".join(paragraphs)


def expected_chunk_ids(n: int, limit: int) -> list[str]:
    identity = "\x1f".join((SCOPE.client_id, SCOPE.project_id, SCOPE.group_id, f"urn:doc:{n}"))
    return [piece.id for piece in chunk(content(n), identity, limit=limit)]


async def enqueue_all(runtime: Runtime) -> None:
    from kenning.domain.ingestion.request import IngestRequest

    gate = asyncio.Semaphore(8)

    async def one(n: int) -> None:
        request = IngestRequest(
            source_urn=f"urn:doc:{n}", kind="note", content=content(n), scope=SCOPE, priority=3
        )
        async with gate:
            await request_ingestion(
                request,
                IngestionIdentity("crash", f"urn:doc:{n}", "v1"),
                policy=runtime.settings.secret_policy,
                override=None,
                queue=runtime.queue.jobs,
                connections=runtime.queue.connections,
            )

    await asyncio.gather(*(one(n) for n in range(DOCUMENTS)))


def start_worker(settings: Settings, log: Path) -> subprocess.Popen[bytes]:
    env = server_env(
        settings,
        0,
        KENNING_QUEUE_LEASE_SECONDS="2",
        KENNING_QUEUE_RECOVER_SECONDS="0.5",
        KENNING_QUEUE_IDLE_SECONDS="0.2",
        KENNING_QUEUE_BULK_SLOTS="3",
        KENNING_LOG_LEVEL="WARNING",
    )
    with log.open("ab") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "kenning", "worker"], env=env, stdout=sink, stderr=sink
        )


async def indexed(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM ingestion_jobs WHERE status = 'INDEXED'"))


async def until_progress(pool: asyncpg.Pool, before: int, worker: subprocess.Popen[bytes]) -> None:
    """Wait until a job more than ``before`` is indexed (the new worker is running jobs)."""
    deadline = time.monotonic() + 120
    while await indexed(pool) <= before:
        assert worker.poll() is None, "the worker exited; its log is in the test's tmp_path"
        assert time.monotonic() < deadline, "the worker indexed nothing within 120 s"
        await asyncio.sleep(0.05)


@pytest.mark.timeout(900)
async def test_killed_workers_lose_nothing_and_do_nothing_twice(
    queue_settings: Settings, queue_pool: asyncpg.Pool, queue_clean: None, tmp_path: Path
) -> None:
    runtime = await open_runtime(queue_settings, queue_pool)
    try:
        await enqueue_all(runtime)
    finally:
        await close_runtime(runtime)
    rng = random.Random(5)
    log = tmp_path / "worker.log"
    worker = start_worker(queue_settings, log)
    kills_at: list[int] = []
    for _ in range(KILLS):
        # Let it get going (start-up takes a moment, longer on a loaded machine: wait for its
        # first finished job rather than a fixed time), then kill it mid-flight.
        await until_progress(queue_pool, await indexed(queue_pool), worker)
        await asyncio.sleep(rng.uniform(0.3, 1.5))
        kills_at.append(await indexed(queue_pool))
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        worker = start_worker(queue_settings, log)
    try:
        deadline = time.monotonic() + 600
        while await indexed(queue_pool) < DOCUMENTS:
            assert worker.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, f"stuck at {await indexed(queue_pool)}"
            await asyncio.sleep(0.5)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert kills_at == sorted(kills_at) and kills_at[-1] < DOCUMENTS  # killed mid-run
    statuses = await queue_pool.fetch("SELECT status, count(*) AS n FROM ingestion_jobs GROUP BY 1")
    assert {r["status"]: r["n"] for r in statuses} == {"INDEXED": DOCUMENTS}
    recovered = await queue_pool.fetchval("SELECT count(*) FROM ingestion_jobs WHERE attempts > 0")
    assert recovered >= 1  # the kills did interrupt running jobs, which ran again
    rows = await queue_pool.fetch(
        "SELECT source_urn, array_agg(id ORDER BY ordinal) AS ids FROM chunks GROUP BY 1"
    )
    stored = {r["source_urn"]: list(r["ids"]) for r in rows}
    limit = queue_settings.chunk_limit
    assert stored == {f"urn:doc:{n}": expected_chunk_ids(n, limit) for n in range(DOCUMENTS)}
    assert await queue_pool.fetchval("SELECT count(*) FROM sources") == DOCUMENTS
