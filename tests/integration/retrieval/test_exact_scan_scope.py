"""The exact scan's own scope filter, and the resident copies': rows the reader may not see
never take their candidates' places, even when they are the nearest of all (the final check
against ``chunks`` would hide a leak there as missing rows, which this makes visible)."""

from __future__ import annotations

import asyncpg
import numpy as np
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clean")]

READER = Scope("acme", "web", "fe")
# Scopes in the reader's client it may not see: another project, another group's rows.
HIDDEN = (("acme", "api", "be"), ("acme", "", "be"))
SEEN = (("acme", "web", "fe"), ("acme", "", ""))


@pytest.mark.parametrize("way", ["scan", "resident"])
async def test_hidden_rows_nearest_to_the_query_leave_the_visible_answer_whole(
    pool: asyncpg.Pool, migrated_settings: Settings, way: str
) -> None:
    dim = migrated_settings.embedding_dim
    query = unit_vectors(5, 1, dim)[0]
    noise = unit_vectors(6, 60, dim) * 0.05
    near = [(q / np.linalg.norm(q)).astype(np.float32) for q in query + noise]  # similarity ~1
    visible = unit_vectors(7, 30, dim)  # unrelated to the query: similarity ~0
    records = [
        (f"h{i:03d}", f"doc:h{i}", 0, "note", *HIDDEN[i % 2], "hidden", v, f"h{i}")
        for i, v in enumerate(near)
    ] + [
        (f"v{i:03d}", f"doc:v{i}", 0, "note", *SEEN[i % 2], "visible", v, f"v{i}")
        for i, v in enumerate(visible)
    ]  # fmt: skip
    async with pool.acquire() as conn:
        await replace_chunks(conn, records)
    index = PgChunkIndex(pool)
    if way == "resident":  # no PostgreSQL scan: the copy holds every row of the client
        index = PgChunkIndex(pool, VectorScan(exact_max_rows=1))
        assert await index.warm(READER) == len(records)
    rows, scanned = await index.nearest_rows(query, READER, SearchFilters(), 10)
    assert scanned  # the scan (its probe sees only visible rows, far from the query) or copies
    order = np.argsort(-(visible @ query), kind="stable")[:10]
    assert [r["id"] for r in rows] == [f"v{i:03d}" for i in order]
