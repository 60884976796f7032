"""A 100 MB original (``KENNING_MAX_FILE_BYTES``) is kept and read back with the event
loop answering: written to its large object a slice at a time, hashed and joined off the
loop. Before, one 100 MB parameter stood the loop still 160 ms, and each join 40-50 ms."""

from __future__ import annotations

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.sources.files.stored import file_bytes
from kenning.storage.sources.files.file_store import PgFileStore
from tests.support.loop_stall import LoopStalls

pytestmark = pytest.mark.integration

STALL = 0.050


async def test_a_100_mb_original_is_kept_and_read_with_the_loop_answering(
    pool: asyncpg.Pool, clean: None
) -> None:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    data = bytes(range(256)) * (100 * 1024 * 1024 // 256)
    files = PgFileStore(pool)
    async with LoopStalls() as saving:
        stored = await files.save(Scope("acme"), "file:big.bin", "big.bin", "text/plain", data)
    async with LoopStalls() as reading:
        read = await file_bytes(files, stored)
    assert read == data and stored.size == len(data)
    assert saving.longest < STALL, f"saving stood the loop still {saving.worst}"
    assert reading.longest < STALL, f"reading stood it still {reading.worst}"
