"""Embedding backend faults: a busy backend delays jobs without failing any; a malformed
answer fails the job with a clear error. Real Ollama adapter, fake backend on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.embedders.ollama import OllamaEmbedder
from tests.fakes.embed_backend import FakeEmbedBackend
from tests.support.graphql_api import Api
from tests.support.queue_api import close_runtime, job_status, open_runtime, request, wait_for

pytestmark = pytest.mark.integration


@pytest.fixture
async def backend(queue_settings: Settings) -> AsyncIterator[FakeEmbedBackend]:
    fake = FakeEmbedBackend(queue_settings.embedding_dim)
    await asyncio.to_thread(fake.start)
    yield fake
    await asyncio.to_thread(fake.stop)


@pytest.fixture
async def ollama_runtime(
    queue_settings: Settings,
    queue_pool: asyncpg.Pool,
    queue_clean: None,
    backend: FakeEmbedBackend,
) -> AsyncIterator[Runtime]:
    embedder = OllamaEmbedder(
        backend.url, model="fake-embed", dimension=queue_settings.embedding_dim, timeout=5
    )
    runtime = await open_runtime(queue_settings, queue_pool, embedder)
    yield runtime
    await close_runtime(runtime)
    await embedder.aclose()


async def counts(pool: asyncpg.Pool) -> dict[str, int]:
    rows = await pool.fetch("SELECT status, count(*) AS n FROM ingestion_jobs GROUP BY status")
    return {r["status"]: r["n"] for r in rows}


async def test_a_busy_backend_delays_jobs_and_none_fails(
    ollama_runtime: Runtime, backend: FakeEmbedBackend, queue_pool: asyncpg.Pool
) -> None:
    api = Api(ollama_runtime)
    backend.mode = "busy"
    handles = [await request(api, f"urn:busy{n}") for n in range(6)]
    await ollama_runtime.queue.start_workers(ollama_runtime.job_deps(), 1)

    async def all_waiting() -> bool:
        jobs = [await job_status(api, h["jobId"]) for h in handles]
        return all(j is not None and j["attempts"] >= 1 for j in jobs)

    await wait_for(all_waiting)
    waiting = await job_status(api, handles[0]["jobId"])
    assert waiting is not None
    assert waiting["status"] == "QUEUED" and "503" in waiting["lastError"]
    backend.mode = "ok"

    async def all_indexed() -> bool:
        return await counts(queue_pool) == {"INDEXED": 6}

    await wait_for(all_indexed, within=30)
    assert backend.calls["busy"] >= 6
    assert set(backend.priorities) == {"3"}  # the jobs' priority reached the backend


async def test_a_malformed_answer_fails_the_job_with_a_clear_error(
    ollama_runtime: Runtime, backend: FakeEmbedBackend
) -> None:
    api = Api(ollama_runtime)
    backend.mode = "malformed"
    handle = await request(api, "urn:garbled")
    await ollama_runtime.queue.start_workers(ollama_runtime.job_deps(), 1)

    async def failed() -> bool:
        job = await job_status(api, handle["jobId"])
        return job is not None and job["status"] == "FAILED"

    await wait_for(failed)
    job = await job_status(api, handle["jobId"])
    assert job is not None
    assert job["lastError"] == (
        "EMBEDDING_FAILED: ollama answer has no 'embeddings' list "
        "(is this /api/embed of Ollama >= 0.3?)"
    )
    assert job["attempts"] == 0
