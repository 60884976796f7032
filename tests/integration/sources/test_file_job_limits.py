"""What a file job stores of a file built to cost far more than its size: a few kB of
spreadsheet padding, more chunks than a file may make, a slide shape python-pptx cannot
read. Each through ``ingestFile`` and the app's own worker, checked in the database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from kenning.settings import Settings
from tests.support import file_samples as samples
from tests.support.file_uploads import Uploads, running_uploads

pytestmark = pytest.mark.integration


@pytest.fixture
async def uploads(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    async with running_uploads(migrated_settings, pool) as running:
        yield running


async def stored_chunks(pool: asyncpg.Pool, urn: str) -> list[str]:
    rows = await pool.fetch(
        "SELECT content FROM chunks WHERE source_urn = $1 ORDER BY ordinal", urn
    )
    return [row["content"] for row in rows]


async def test_a_few_kb_of_sheet_padding_is_stored_as_its_one_real_table(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    padded = samples.padded_xlsx(rows=60)  # read naively: 3,220 chunks of "|  |  |"
    result = await uploads.upload("padded.xlsx", padded)
    assert (await uploads.finished(result["job"]["jobId"]))["status"] == "INDEXED"
    chunks = await stored_chunks(pool, "file:padded.xlsx")
    assert len(chunks) == 2  # 60 rows of two columns, 1,300 characters
    assert chunks[0].startswith("## Sales\n\n| Region | Revenue |\n|---|---|\n| Region 2 | 200 |")
    assert chunks[-1].endswith("| Region 60 | 6000 |")
    assert not any("|  |" in chunk or "Blank" in chunk for chunk in chunks)
