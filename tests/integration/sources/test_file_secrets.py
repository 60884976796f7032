"""Originals and secrets over the real stack: a file whose extracted text (or an
attachment's) held a credential is indexed redacted under KENNING_SECRET_POLICY=redact but its
original is not kept (``storedFile.kept`` false with the reason, the download a 410 to its
readers, the same 404 to others, no large object left); under reject it is refused whole and
nothing is left. ``PgFileStore.settle`` supersedes the originals its source had indexed
before, never one still queued, and a not-kept file's tombstone survives a retried settle."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.sources.files.stored import NotKeptReason, file_bytes
from kenning.settings import Settings
from kenning.storage.sources.files.file_store import PgFileStore
from tests.support.file_samples import sample_email
from tests.support.file_uploads import Uploads, running_uploads

pytestmark = pytest.mark.integration

KEY = "AKIAVXMTRGHKWNCPDLEM"
NOTES = f"# Deploy\n\nThe deploy user signs in with key {KEY} on the bastion.\n".encode()
STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"""
STORED = """query S($id: ID!) { storedFile(id: $id) {
  id kept notKeptReason notKeptMessage downloadUrl } }"""


async def uploads_with(
    pool: asyncpg.Pool, settings: Settings, policy: SecretPolicy
) -> AsyncIterator[Uploads]:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    configured = settings.model_copy(update={"max_file_bytes": 400_000, "secret_policy": policy})
    async with running_uploads(configured, pool) as running:
        yield running


@pytest.fixture
async def redacting(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    async for running in uploads_with(pool, migrated_settings, SecretPolicy.REDACT):
        yield running


@pytest.fixture
async def rejecting(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    async for running in uploads_with(pool, migrated_settings, SecretPolicy.REJECT):
        yield running


async def finished(uploads: Uploads, job_id: str) -> dict[str, Any]:
    for _ in range(600):
        job = (await uploads.graphql(STATUS, "acme", id=job_id))["ingestionStatus"]
        if job["status"] not in ("QUEUED", "RUNNING"):
            return dict(job)
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


async def stored_bytes_hold_key(pool: asyncpg.Pool) -> bool:
    """Whether any large object (any stored original) still holds the credential."""
    rows = await pool.fetch("SELECT lo_get(oid) AS data FROM pg_largeobject_metadata")
    return any(KEY.encode() in bytes(row["data"]) for row in rows)


@pytest.mark.parametrize(
    ("filename", "data", "urn"),
    [
        ("deploy.md", NOTES, "file:deploy.md"),
        (
            "note.eml",
            sample_email([("deploy.md", NOTES, "text/markdown")]),
            "file:note.eml/deploy.md",
        ),
    ],
)
async def test_under_redact_the_chunks_are_redacted_and_the_original_is_not_kept(
    redacting: Uploads, pool: asyncpg.Pool, filename: str, data: bytes, urn: str
) -> None:
    result = await redacting.upload(filename, data)
    assert result["__typename"] == "IngestFileSuccess", result
    assert (await finished(redacting, result["job"]["jobId"]))["status"] == "INDEXED"
    chunks = [r["content"] for r in await pool.fetch(
        "SELECT content FROM chunks WHERE source_urn = $1", urn)]  # fmt: skip
    assert chunks and "Deploy" in " ".join(chunks) and not any(KEY in c for c in chunks)

    seen = (await redacting.graphql(STORED, "acme", id=result["file"]["id"]))["storedFile"]
    assert (seen["kept"], seen["notKeptReason"]) == (False, "CREDENTIALS")
    assert "credentials" in seen["notKeptMessage"]
    download = await redacting.http.get(seen["downloadUrl"], headers=redacting.auth("acme"))
    assert download.status_code == 410
    error = download.json()["errors"][0]
    assert error["extensions"] == {"code": "GONE", "reason": "CREDENTIALS"}
    assert KEY not in download.text
    other = await redacting.http.get(seen["downloadUrl"], headers=redacting.auth("globex"))
    assert other.status_code == 404
    assert (await redacting.graphql(STORED, "globex", id=seen["id"]))["storedFile"] is None

    assert not await stored_bytes_hold_key(pool)
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 0
    assert await pool.fetchval("SELECT count(*) FROM source_files WHERE content_oid IS NULL") == 1


async def test_under_redact_a_clean_file_stays_downloadable(
    redacting: Uploads, pool: asyncpg.Pool
) -> None:
    data = b"# Deploy\n\nThe deploy user signs in through the bastion.\n"
    result = await redacting.upload("clean.md", data)
    assert (await finished(redacting, result["job"]["jobId"]))["status"] == "INDEXED"
    seen = (await redacting.graphql(STORED, "acme", id=result["file"]["id"]))["storedFile"]
    assert (seen["kept"], seen["notKeptReason"]) == (True, None)
    download = await redacting.http.get(seen["downloadUrl"], headers=redacting.auth("acme"))
    assert (download.status_code, download.content) == (200, data)


async def test_under_reject_the_file_is_refused_whole_and_nothing_is_left(
    rejecting: Uploads, pool: asyncpg.Pool
) -> None:
    result = await rejecting.upload("note.eml", sample_email([("deploy.md", NOTES, "text/md")]))
    job = await finished(rejecting, result["job"]["jobId"])
    assert job["status"] == "FAILED" and "aws_access_key_id" in job["lastError"]
    assert (await rejecting.graphql(STORED, "acme", id=result["file"]["id"]))["storedFile"] is None
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 0


async def test_settle_supersedes_indexed_originals_only_in_its_scope(
    pool: asyncpg.Pool, clean: None
) -> None:
    await pool.execute("DELETE FROM source_files")
    files, acme, globex = PgFileStore(pool), Scope("acme"), Scope("globex")
    older = await files.save(acme, "file:a.md", "a.md", "text/markdown", b"old")
    assert await files.settle(older, None) == 0
    current = await files.save(acme, "file:a.md", "a.md", "text/markdown", b"current")
    queued = await files.save(acme, "file:a.md", "a.md", "text/markdown", b"queued")
    theirs = await files.save(globex, "file:a.md", "a.md", "text/markdown", b"old")
    await files.settle(theirs, None)

    assert await files.settle(current, NotKeptReason.CREDENTIALS) == 1
    assert await files.get(older.id, acme) is None
    assert await files.get(theirs.id, globex) is not None
    assert await files.get(queued.id, acme) is not None  # still queued: kept
    tomb = await files.get(current.id, acme)
    assert tomb is not None and tomb.not_kept is NotKeptReason.CREDENTIALS
    assert await file_bytes(files, tomb) == b""
    # A retried settle changes nothing and deletes no file indexed after it.
    assert await files.settle(current, None) == 0
    assert await files.settle(queued, None) == 1
    assert await files.settle(current, None) == 0
    assert await files.get(queued.id, acme) is not None
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 2
