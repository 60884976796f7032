"""What a file job stores of a file built to cost far more than its size: a few kB of
spreadsheet padding, more chunks than a file may make, a slide shape python-pptx cannot
read. Each through ``ingestFile`` and the app's own worker, checked in the database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from kenning.settings import Settings
from tests.support import file_samples as samples
from tests.support import hostile_files as hostile
from tests.support.file_uploads import Uploads, running_uploads
from tests.support.graph_rows import graph_edges, graph_vertices

pytestmark = pytest.mark.integration


async def stored_chunks(pool: asyncpg.Pool, urn: str) -> list[str]:
    rows = await pool.fetch(
        "SELECT content FROM chunks WHERE source_urn = $1 ORDER BY ordinal", urn
    )
    return [row["content"] for row in rows]


async def test_a_few_kb_of_sheet_padding_is_stored_as_its_one_real_table(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    padded = hostile.padded_xlsx(rows=60)  # read naively: 3,220 chunks of "|  |  |"
    result = await uploads.upload("padded.xlsx", padded)
    assert (await uploads.finished(result["job"]["jobId"]))["status"] == "INDEXED"
    chunks = await stored_chunks(pool, "file:padded.xlsx")
    assert len(chunks) == 2  # 60 rows of two columns, 1,300 characters
    assert chunks[0].startswith("## Sales\n\n| Region | Revenue |\n|---|---|\n| Region 2 | 200 |")
    assert chunks[-1].endswith("| Region 60 | 6000 |")
    assert not any("|  |" in chunk or "Blank" in chunk for chunk in chunks)


@pytest.fixture
async def capped(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    settings = migrated_settings.model_copy(update={"max_chunks_per_file": 4})
    async with running_uploads(settings, pool) as running:
        yield running


async def test_a_file_over_the_chunk_limit_with_its_attachments_fails_with_nothing_stored(
    capped: Uploads, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    # The message and each attachment alone are within 4 chunks; together they are 5.
    mail = samples.sample_email(
        [("handbook.docx", samples.sample_docx(), "application/octet-stream"),
         ("notes.txt", b"attached notes about failover", "text/plain")]
    )  # fmt: skip
    result = await capped.upload("outage.eml", mail)
    assert result["__typename"] == "IngestFileSuccess", result
    job = await capped.finished(result["job"]["jobId"])
    assert job == {
        "status": "FAILED",
        "lastError": "INVALID: TOO_LARGE: the file would be stored as more than 4 chunks "
        "(attachments included), the limit per file",
    }
    for table in ("chunks", "sources", "source_mentions", "source_files"):
        assert await pool.fetchval(f"SELECT count(*) FROM {table}") == 0, table
    assert await pool.fetchval("SELECT count(*) FROM pg_largeobject_metadata") == 0
    graph = migrated_settings.graph_name
    assert await graph_vertices(pool, graph) == [] and await graph_edges(pool, graph) == set()


async def test_a_deck_with_an_unreadable_shape_is_indexed_without_it(
    uploads: Uploads, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    result = await uploads.upload("deck.pptx", hostile.pptx_with_shape_without_geometry())
    assert await uploads.finished(result["job"]["jobId"]) == {
        "status": "INDEXED", "lastError": None,
    }  # fmt: skip
    chunks = await stored_chunks(pool, "file:deck.pptx")
    assert chunks == ["## Roadmap\n\nShip in March\n\nHire two SREs"]
    notes = await pool.fetchval(
        f"SELECT * FROM cypher('{migrated_settings.graph_name}', $$ MATCH (v) "
        "WHERE v.key = 'document:file_deck.pptx' RETURN v.notes $$) AS (n agtype)"
    )
    assert "shape 4 ('Sketch 7') on slide 1 was skipped" in notes
