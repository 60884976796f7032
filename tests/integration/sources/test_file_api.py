"""ingestFile end to end over HTTP: the multipart upload through the real app, the queued
"file" job run by the app's worker, chunks with their page and section metadata, e-mail
attachments as their own sources linked to the message, the download scoped (another tenant
gets the same 404 as an unknown id), and every bad file refused with its typed member and
nothing stored."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from kenning.settings import Settings
from tests.support.file_samples import encrypted_pdf, sample_docx, sample_email, text_pdf
from tests.support.file_uploads import INGEST_FILE, Uploads, multipart, running_uploads
from tests.support.graph_rows import graph_edges
from tests.support.hostile_files import encrypted_office, zip_bomb_docx

pytestmark = pytest.mark.integration

STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"""
STORED = """query S($id: ID!) { storedFile(id: $id) { id filename size downloadUrl kept } }"""


@pytest.fixture
async def uploads(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    settings = migrated_settings.model_copy(
        update={"max_file_bytes": 400_000, "max_request_bytes": 100_000}
    )
    async with running_uploads(settings, pool) as running:
        yield running


async def finished(uploads: Uploads, job_id: str, tenant: str = "acme") -> dict[str, Any]:
    for _ in range(600):
        job = (await uploads.graphql(STATUS, tenant, id=job_id))["ingestionStatus"]
        if job["status"] not in ("QUEUED", "RUNNING"):
            return dict(job)
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


async def chunk_metadata(pool: asyncpg.Pool, urn: str) -> list[dict[str, Any]]:
    rows = await pool.fetch(
        "SELECT metadata::text AS m FROM chunks WHERE source_urn = $1 ORDER BY ordinal", urn
    )
    return [json.loads(row["m"]) for row in rows]


async def test_a_pdf_is_queued_indexed_with_pages_and_downloadable_by_its_tenant_only(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    data = text_pdf(["Invoices are paid within thirty days.", "Refunds need a ticket."])
    result = await uploads.upload("report.pdf", data, tags=["finance"])
    assert result["__typename"] == "IngestFileSuccess", result
    stored = result["file"]
    assert (stored["filename"], stored["mediaType"], stored["size"]) == (
        "report.pdf", "application/pdf", len(data),
    )  # fmt: skip
    assert stored["sourceUrn"] == "file:report.pdf"
    assert (await finished(uploads, result["job"]["jobId"]))["status"] == "INDEXED"
    metadata = await chunk_metadata(pool, "file:report.pdf")
    assert [m.get("page") for m in metadata] == [1, 2]
    assert all(m["media_type"] == "application/pdf" for m in metadata)

    download = await uploads.http.get(stored["downloadUrl"], headers=uploads.auth("acme"))
    assert download.status_code == 200
    assert download.content == data
    assert download.headers["content-type"] == "application/pdf"
    assert download.headers["content-disposition"].startswith('attachment; filename="report.pdf"')
    assert download.headers["x-content-type-options"] == "nosniff"

    hidden = await uploads.http.get(stored["downloadUrl"], headers=uploads.auth("globex"))
    unknown = await uploads.http.get(f"/files/{uuid.uuid4()}", headers=uploads.auth("globex"))
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json() == unknown.json()
    assert (await uploads.http.get(stored["downloadUrl"])).status_code == 401
    seen = await uploads.graphql(STORED, "globex", id=stored["id"])
    assert seen["storedFile"] is None
    mine = await uploads.graphql(STORED, "acme", id=stored["id"])
    assert mine["storedFile"]["size"] == len(data)


async def test_the_same_upload_again_is_the_same_file_and_job(uploads: Uploads) -> None:
    data = text_pdf(["Same content twice."])
    first = await uploads.upload("same.pdf", data)
    await finished(uploads, first["job"]["jobId"])
    again = await uploads.upload("same.pdf", data)
    assert again["file"]["id"] == first["file"]["id"]
    assert again["job"]["jobId"] == first["job"]["jobId"]


async def test_a_docx_keeps_its_section_paths(uploads: Uploads, pool: asyncpg.Pool) -> None:
    result = await uploads.upload("handbook.docx", sample_docx(), sourceUrn="doc:handbook")
    assert (await finished(uploads, result["job"]["jobId"]))["status"] == "INDEXED"
    paths = [m.get("section_path") for m in await chunk_metadata(pool, "doc:handbook")]
    assert any(path and len(path) >= 1 for path in paths), paths


async def test_an_email_attachment_is_its_own_source_attached_to_the_message(
    uploads: Uploads, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    attachment = text_pdf(["The failover runbook: promote the replica."])
    mail = sample_email([("runbook.pdf", attachment, "application/pdf")])
    result = await uploads.upload("outage.eml", mail)
    assert (await finished(uploads, result["job"]["jobId"]))["status"] == "INDEXED"
    urns = {r["source_urn"] for r in await pool.fetch("SELECT source_urn FROM sources")}
    assert urns == {"file:outage.eml", "file:outage.eml/runbook.pdf"}
    pages = await chunk_metadata(pool, "file:outage.eml/runbook.pdf")
    assert pages and pages[0]["page"] == 1
    edges = await graph_edges(pool, migrated_settings.graph_name)
    found = {(a, t, b): e for _, a, t, b, e in edges}
    evidence = found[("document:file_outage.eml/runbook.pdf", "attached_to",
                      "document:file_outage.eml")]  # fmt: skip
    first = await pool.fetchval(
        "SELECT id FROM chunks WHERE source_urn = $1 ORDER BY ordinal LIMIT 1",
        "file:outage.eml/runbook.pdf",
    )
    assert evidence == (first,)


@pytest.mark.parametrize(
    ("filename", "data", "problem", "code"),
    [
        ("notes.pdf", b"\x00\x01\x02 not a known format \xff" * 40, "UNSUPPORTED_TYPE", "INVALID"),
        ("bomb.docx", zip_bomb_docx(), "ZIP_BOMB", "TOO_LARGE"),
        ("locked.docx", encrypted_office(), "ENCRYPTED", "INVALID"),
        ("huge.txt", b"a" * 400_001, "TOO_LARGE", "TOO_LARGE"),
        ("empty.txt", b"", "CORRUPT", "INVALID"),
    ],
)
async def test_a_bad_file_gets_its_typed_member_and_nothing_is_stored(
    uploads: Uploads, pool: asyncpg.Pool, filename: str, data: bytes, problem: str, code: str
) -> None:
    result = await uploads.upload(filename, data)
    assert result["__typename"] == "FileRejected", result
    assert (result["problem"], result["code"], result["field"]) == (problem, code, "file")
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


async def test_a_bad_option_names_its_field_and_stores_nothing(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    result = await uploads.upload("a.pdf", text_pdf(["x"]), priority=42)
    assert (result["__typename"], result["field"]) == ("ValidationError", "priority")
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0


async def test_an_encrypted_pdf_fails_its_job_with_the_reason_and_leaves_nothing(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    result = await uploads.upload("locked.pdf", encrypted_pdf())
    assert result["__typename"] == "IngestFileSuccess"
    job = await finished(uploads, result["job"]["jobId"])
    assert job["status"] == "FAILED"
    assert "ENCRYPTED" in job["lastError"]
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 0


async def test_a_multipart_request_without_a_preflight_header_is_refused(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    answer = await uploads.http.post(
        "/graphql", headers=uploads.auth("acme"), **multipart(INGEST_FILE, "a.pdf", b"%PDF-1.4")
    )
    assert answer.status_code == 400
    assert "Apollo-Require-Preflight" in answer.json()["errors"][0]["message"]
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0


PURGE = """mutation P($urn: String!) { purgeSource(sourceUrn: $urn) {
  __typename ... on PurgeSuccess { sources } } }"""


async def test_a_new_upload_supersedes_the_older_original_and_a_purge_deletes_it(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    first = await uploads.upload("plan.pdf", text_pdf(["Plan A."]))
    await finished(uploads, first["job"]["jobId"])
    second = await uploads.upload("plan.pdf", text_pdf(["Plan B."]))
    assert first["file"]["id"] != second["file"]["id"]
    assert (await uploads.graphql(STORED, "acme", id=first["file"]["id"]))["storedFile"]
    assert (await finished(uploads, second["job"]["jobId"]))["status"] == "INDEXED"
    # Indexing plan B superseded plan A's original (its chunks were replaced too).
    assert (await uploads.graphql(STORED, "acme", id=first["file"]["id"]))["storedFile"] is None
    kept = await uploads.graphql(STORED, "acme", id=second["file"]["id"])
    assert kept["storedFile"]["kept"] is True
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 1
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 1
    purged = (await uploads.graphql(PURGE, "acme", urn="file:plan.pdf"))["purgeSource"]
    assert purged["sources"] == 1
    gone = await uploads.http.get(second["file"]["downloadUrl"], headers=uploads.auth("acme"))
    assert gone.status_code == 404
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 0


async def test_an_upload_may_pass_the_request_limit_up_to_the_file_limit(uploads: Uploads) -> None:
    notes = ("# Notes\n\n" + "Deploys happen on Tuesdays after the review. " * 5000).encode()
    assert 100_000 < len(notes) < 400_000
    result = await uploads.upload("notes.md", notes)
    assert result["__typename"] == "IngestFileSuccess", result
    assert result["file"]["mediaType"] == "text/markdown"
    big_json = await uploads.http.post(
        "/graphql", headers=uploads.auth("acme"),
        json={"query": "{ __typename }", "variables": {"pad": "x" * 100_001}},
    )  # fmt: skip
    assert big_json.status_code == 413
