"""A purge purges an upload its job has not indexed yet, and nothing of it comes back.

Over the real app and stack: ``purgeSource`` of an upload still queued deletes its original
(bytes included) and cancels its job; one whose job is running (held at its embedding)
cancels the job, and what the job wrote after never commits; a file job whose original is
deleted under it ends SKIPPED with nothing written; ``purgeConnection`` cancels the
connection's queued jobs. The file sweep deletes originals no job will index once their
grace has passed, and large objects no original points to, and nothing else.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.purge import PURGE_LOCK_WAIT
from kenning.domain.sources.files.stored import FileSweep
from kenning.settings import Settings
from kenning.storage.sources.files.file_store import PgFileStore
from tests.support.counting_embedder import CountingEmbedder
from tests.support.file_samples import text_pdf
from tests.support.file_uploads import Uploads, running_uploads

pytestmark = pytest.mark.integration

STATUS = "query S($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"
PURGE = """mutation P($urn: String!) { purgeSource(sourceUrn: $urn) {
  __typename ... on PurgeSuccess { sources chunks filesDeleted jobsCancelled } } }"""
CANCEL = "mutation C($id: ID!) { cancelJob(jobId: $id) { __typename } }"


async def _objects(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata"))


@pytest.fixture
async def emptied(pool: asyncpg.Pool, clean: None) -> None:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
        await conn.execute("SELECT lo_unlink(oid) FROM pg_largeobject_metadata")


@pytest.fixture
async def idle(
    pool: asyncpg.Pool, migrated_settings: Settings, emptied: None
) -> AsyncIterator[Uploads]:
    """The app with no queue worker: every job stays QUEUED."""
    async with running_uploads(
        migrated_settings.model_copy(update={"queue_workers": 0}), pool
    ) as up:
        yield up


@pytest.fixture
def held(migrated_settings: Settings) -> CountingEmbedder:
    return CountingEmbedder(migrated_settings.embedding_dim)


@pytest.fixture
async def working(
    pool: asyncpg.Pool, migrated_settings: Settings, emptied: None, held: CountingEmbedder
) -> AsyncIterator[Uploads]:
    """The app with its worker; ``held`` can stop the worker's jobs at their embedding."""
    async with running_uploads(migrated_settings, pool, held) as running:
        yield running


async def _ended(uploads: Uploads, job_id: str) -> dict[str, Any]:
    for _ in range(600):
        job = (await uploads.graphql(STATUS, id=job_id))["ingestionStatus"]
        if job["status"] not in ("QUEUED", "RUNNING"):
            return dict(job)
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not end")


async def _worker_outcome(uploads: Uploads) -> str:
    """How the app's worker ended the one job it ran (its job metric), once it has."""
    for _ in range(600):
        text = (await uploads.http.get("/metrics")).text
        ended = re.findall(r'kenning_queue_job_seconds_count\{outcome="(\w+)"\} 1\.0', text)
        if ended:
            return str(ended[0])
        await asyncio.sleep(0.05)
    raise AssertionError("the worker did not end its job")


async def _chunks(pool: asyncpg.Pool, urn: str) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM chunks WHERE source_urn = $1", urn))


async def test_purging_a_queued_upload_deletes_its_original_and_cancels_its_job(
    idle: Uploads, pool: asyncpg.Pool
) -> None:
    up = await idle.upload("plan.pdf", text_pdf(["Plan A for the launch."]))
    assert await _objects(pool) == 1
    purged = (await idle.graphql(PURGE, urn="file:plan.pdf"))["purgeSource"]
    assert purged == {
        "__typename": "PurgeSuccess",
        "sources": 0,
        "chunks": 0,
        "filesDeleted": 1,
        "jobsCancelled": 1,
    }
    job = (await idle.graphql(STATUS, id=up["job"]["jobId"]))["ingestionStatus"]
    assert job["status"] == "CANCELLED" and "purged" in job["lastError"]
    download = await idle.http.get(up["file"]["downloadUrl"], headers=idle.auth("acme"))
    assert download.status_code == 404
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
    assert await _objects(pool) == 0


async def test_purging_an_upload_whose_job_runs_leaves_nothing_of_it(
    working: Uploads, held: CountingEmbedder, pool: asyncpg.Pool
) -> None:
    held.hold()
    up = await working.upload("plan.pdf", text_pdf(["Plan B for the launch."]))
    await asyncio.wait_for(held.waiting.wait(), 30)  # the job runs, at its embedding
    purged = (await working.graphql(PURGE, urn="file:plan.pdf"))["purgeSource"]
    assert (purged["filesDeleted"], purged["jobsCancelled"]) == (1, 1)
    held.release()
    assert (await _ended(working, up["job"]["jobId"]))["status"] == "CANCELLED"
    # The worker's own end of the job: whatever it would have written is decided by then.
    assert await _worker_outcome(working) == "lease_lost"
    assert await _chunks(pool, "file:plan.pdf") == 0
    assert await pool.fetchval("SELECT count(*) FROM sources") == 0
    download = await working.http.get(up["file"]["downloadUrl"], headers=working.auth("acme"))
    assert download.status_code == 404
    assert await _objects(pool) == 0


async def test_a_file_job_whose_original_goes_under_it_ends_skipped_with_nothing_written(
    working: Uploads, held: CountingEmbedder, pool: asyncpg.Pool
) -> None:
    held.hold()
    up = await working.upload("plan.pdf", text_pdf(["Plan C for the launch."]))
    await asyncio.wait_for(held.waiting.wait(), 30)
    # Deleted as a purge's transaction deletes it, with the job left running.
    await pool.execute("DELETE FROM source_files WHERE id = $1", up["file"]["id"])
    held.release()
    assert (await _ended(working, up["job"]["jobId"]))["status"] == "SKIPPED_DUPLICATE"
    assert await _chunks(pool, "file:plan.pdf") == 0
    assert await pool.fetchval("SELECT count(*) FROM sources") == 0


async def test_purging_a_connection_cancels_its_queued_jobs(idle: Uploads) -> None:
    register = """mutation { registerConnection(input: {connectionId: "wiki",
        authority: "wiki.example.org", label: "Wiki"}) { __typename } }"""
    assert (await idle.graphql(register))["registerConnection"]["__typename"] == (
        "RegisterConnectionSuccess"
    )
    request = """mutation { requestIngestion(input: {sourceUrn: "wiki:1", kind: "note",
        content: "The wiki says hello.", connectionId: "wiki"},
        identity: {sourceKind: "wiki", sourceId: "1", contentVersion: "v1"}) {
        __typename ... on IngestionHandle { jobId } } }"""
    job_id = (await idle.graphql(request))["requestIngestion"]["jobId"]
    purge = """mutation { purgeConnection(connectionId: "wiki") {
        ... on PurgeSuccess { jobsCancelled } } }"""
    # Its summary document's job and the page's.
    assert (await idle.graphql(purge))["purgeConnection"]["jobsCancelled"] == 2
    assert (await idle.graphql(STATUS, id=job_id))["ingestionStatus"]["status"] == "CANCELLED"


async def test_the_sweep_deletes_what_no_job_will_index_after_its_grace(
    idle: Uploads, pool: asyncpg.Pool
) -> None:
    files = PgFileStore(pool)
    cancelled = await idle.upload("old.pdf", text_pdf(["An old plan."]))
    queued = await idle.upload("new.pdf", text_pdf(["A new plan."]))
    await idle.graphql(CANCEL, id=cancelled["job"]["jobId"])
    # Stored bytes nothing points to (a restore interrupted, a row deleted by hand).
    stray = await pool.fetchval("SELECT lo_from_bytea(0, 'stray'::bytea)")
    assert await _objects(pool) == 3
    # Within the grace a cancelled upload keeps its original: its job may be retried.
    assert await files.sweep(timedelta(hours=24)) == FileSweep(files=0, objects=1)
    assert (
        await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata WHERE oid = $1", stray)
        == 0
    )
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 2
    assert await files.sweep(timedelta(0)) == FileSweep(files=1, objects=0)
    left = await pool.fetch("SELECT id FROM source_files")
    assert [r["id"] for r in left] == [queued["file"]["id"]]  # its job is still queued
    assert await _objects(pool) == 1


async def test_the_same_upload_again_is_fresh_for_the_sweep(
    idle: Uploads, pool: asyncpg.Pool
) -> None:
    files = PgFileStore(pool)
    data = text_pdf(["A plan cancelled long ago."])
    first = await idle.upload("old.pdf", data)
    await idle.graphql(CANCEL, id=first["job"]["jobId"])
    await pool.execute(
        "UPDATE source_files SET created_at = now() - interval '3 days'; "
        "UPDATE ingestion_jobs SET finished_at = now() - interval '3 days'"
    )
    # Uploaded again: the same original, stored before its new job is queued. A sweep in
    # between must not take it.
    again = await files.save(Scope("acme"), "file:old.pdf", "old.pdf", "application/pdf", data)
    assert again.id == first["file"]["id"]
    assert await files.sweep(timedelta(hours=24)) == FileSweep(files=0, objects=0)
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 1


async def test_a_purge_waits_only_briefly_for_a_write_of_its_source(
    idle: Uploads, pool: asyncpg.Pool
) -> None:
    up = await idle.upload("plan.pdf", text_pdf(["Plan D for the launch."]))
    async with pool.acquire() as writer, writer.transaction():
        # What a file job's write holds while it stores the file (HeldOriginalStore).
        await writer.execute("SELECT 1 FROM source_files WHERE id = $1 FOR SHARE", up["file"]["id"])
        started = time.perf_counter()
        body = {"query": PURGE, "variables": {"urn": "file:plan.pdf"}}
        answer = await idle.http.post("/graphql", json=body, headers=idle.auth("acme"))
        waited = time.perf_counter() - started
    refused = answer.json()["errors"][0]
    assert refused["extensions"]["code"] == "CONFLICT", refused
    assert (
        "being written by a job" in refused["message"]
        and "nothing was purged" in refused["message"]
    )
    assert PURGE_LOCK_WAIT <= waited < PURGE_LOCK_WAIT + 5
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 1
    # Its job was cancelled all the same; once the write has ended the purge goes through.
    assert (await idle.graphql(STATUS, id=up["job"]["jobId"]))["ingestionStatus"]["status"] == (
        "CANCELLED"
    )
    purged = (await idle.graphql(PURGE, urn="file:plan.pdf"))["purgeSource"]
    assert purged["filesDeleted"] == 1 and await _objects(pool) == 0
