"""Chunk rows written straight into ``chunks`` (``COPY``), for tests of search plans and
scoping that need more rows, or rows of more tenants, than ingesting them would be worth.
The BM25 triggers are statement triggers and ``COPY`` fires them, so keyword search sees
these rows too."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kenning.storage.db.pool import Connection

COLUMNS = ("id", "source_urn", "ordinal", "kind", "client_id", "project_id", "group_id",
           "content", "embedding", "content_hash")  # fmt: skip


def unit_vectors(seed: int, count: int, dimension: int) -> np.ndarray:
    """``count`` random unit vectors of ``dimension`` floats (float32), the same for a seed."""
    vectors = np.random.default_rng(seed).standard_normal((count, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


async def replace_chunks(
    conn: Connection, records: Sequence[tuple[object, ...]], extra: Sequence[str] = ()
) -> None:
    """Empty ``chunks``, write ``records`` (``COLUMNS`` then ``extra`` columns) and analyze,
    so plans see the new row counts."""
    await conn.execute("TRUNCATE chunks")
    await conn.copy_records_to_table("chunks", records=records, columns=[*COLUMNS, *extra])
    await conn.execute("ANALYZE chunks")
