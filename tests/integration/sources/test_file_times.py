"""A file's own date as its chunks' observedAt: an e-mail's Date, a PDF's ModDate (else
CreationDate), an Office file's modified (else created), read by the real adapters; a
broken one is ignored, never an error. End to end, ``ingestFile``'s ``observedAt`` wins over
the file's date, an attachment without a date of its own takes its message's (and so does
its ``attached_to`` edge's validFrom), and a bad ``observedAt`` is refused naming it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from kenning.domain.sources.files import ExtractedFile, FileLimits, OcrMode, extract_file
from kenning.storage.sources.files import LibraryFileParser
from tests.support import file_samples as samples
from tests.support.file_uploads import Uploads

pytestmark = pytest.mark.integration

PARSER = LibraryFileParser()
JULY = datetime(2024, 7, 1, 10, tzinfo=UTC)  # sample_email's Date
CREATED = datetime(2022, 3, 4, tzinfo=UTC)
CHUNK = """query($id: ID!) { chunk(id: $id) { observedAt } }"""
EDGES = """query($key: String!) {
  node(key: $key) { edges(direction: OUT) { edgeType to { key } validFrom } } }"""


async def extract(data: bytes, filename: str) -> ExtractedFile:
    return await extract_file(
        data, filename=filename, ocr=OcrMode.NEVER, limits=FileLimits(), parser=PARSER,
        describer=None,
    )  # fmt: skip


async def test_a_pdf_is_dated_by_mod_date_else_creation_date() -> None:
    modified = samples.dated_pdf(
        "Refunds take five days.", created=CREATED, modified="D:20230405060708+02'00'"
    )
    assert (await extract(modified, "a.pdf")).observed_at == datetime(
        2023, 4, 5, 4, 7, 8, tzinfo=UTC
    )
    created = samples.dated_pdf("Refunds take five days.", created=CREATED)
    assert (await extract(created, "b.pdf")).observed_at == CREATED
    broken = samples.dated_pdf("Refunds take five days.", created=CREATED, modified="D:2023xx")
    assert (await extract(broken, "c.pdf")).observed_at == CREATED  # the next date it has


@pytest.mark.parametrize(
    ("sample", "name"),
    [(samples.sample_docx, "h.docx"), (samples.sample_pptx, "d.pptx"),
     (samples.sample_xlsx, "s.xlsx")],
)  # fmt: skip
async def test_office_files_are_dated_by_their_core_properties(sample: Any, name: str) -> None:
    data = samples.dated_office(sample(), "2021-06-07T08:09:10Z")
    extracted = await extract(data, name)
    assert extracted.observed_at == datetime(2021, 6, 7, 8, 9, 10, tzinfo=UTC)
    assert extracted.text  # read as before


async def test_an_email_is_dated_by_its_date_header_and_a_broken_one_is_ignored() -> None:
    eml = samples.sample_email([], date="Mon, 01 Jul 2024 12:00:00 +0200")
    assert (await extract(eml, "m.eml")).observed_at == JULY
    broken = samples.sample_email([]).replace(
        b"Mon, 01 Jul 2024 10:00:00 +0000", b"the day after the outage"
    )
    extracted = await extract(broken, "m.eml")
    assert extracted.observed_at is None and "failed over" in extracted.text


async def _finished(uploads: Uploads, upload: dict[str, Any]) -> None:
    assert upload["__typename"] == "IngestFileSuccess", upload
    job = await uploads.finished(upload["job"]["jobId"])
    assert job["status"] == "INDEXED", job


async def _observed(uploads: Uploads, pool: asyncpg.Pool, urn: str) -> set[datetime]:
    ids = await pool.fetch("SELECT id FROM chunks WHERE source_urn = $1", urn)
    assert ids, urn
    found = [await uploads.graphql(CHUNK, id=row["id"]) for row in ids]
    return {datetime.fromisoformat(f["chunk"]["observedAt"]) for f in found}


async def test_an_email_and_its_attachment_are_observed_when_it_was_sent(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    eml = samples.sample_email([("notes.txt", b"attached notes about failover", "text/plain")])
    await _finished(uploads, await uploads.upload("outage.eml", eml))
    assert await _observed(uploads, pool, "file:outage.eml") == {JULY}
    assert await _observed(uploads, pool, "file:outage.eml/notes.txt") == {JULY}
    edges = (await uploads.graphql(EDGES, key="document:file:outage.eml/notes.txt"))["node"]
    assert [(e["edgeType"], datetime.fromisoformat(e["validFrom"])) for e in edges["edges"]] == [
        ("attached_to", JULY)
    ]


async def test_a_dated_pdf_and_docx_keep_their_dates_unless_the_writer_says(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    pdf = samples.dated_pdf("Billing runs monthly.", created=CREATED)
    docx = samples.dated_office(samples.sample_docx(), "2021-06-07T08:09:10Z")
    given = "2020-02-02T02:02:02+00:00"
    uploaded = await asyncio.gather(
        uploads.upload("report.pdf", pdf),
        uploads.upload("handbook.docx", docx),
        uploads.upload("told.pdf", pdf, observedAt=given),
    )
    for upload in uploaded:
        await _finished(uploads, upload)
    assert await _observed(uploads, pool, "file:report.pdf") == {CREATED}
    assert await _observed(uploads, pool, "file:handbook.docx") == {
        datetime(2021, 6, 7, 8, 9, 10, tzinfo=UTC)
    }
    assert await _observed(uploads, pool, "file:told.pdf") == {datetime.fromisoformat(given)}


async def test_a_bad_observed_at_refuses_the_upload_naming_it(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    pdf = samples.dated_pdf("Billing runs monthly.", created=CREATED)
    refused = await uploads.upload("report.pdf", pdf, observedAt="2020-02-02T02:02:02")
    assert (refused["__typename"], refused["field"]) == ("ValidationError", "observedAt")
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
