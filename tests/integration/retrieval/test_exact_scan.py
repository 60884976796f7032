"""The exact vector scan (``exact_sql``, migration 0021): when it answers and what it answers
(its side tables' triggers: ``test_chunk_vectors_sync``; its own scope filter:
``test_exact_scan_scope``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import numpy as np
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.db.visibility import reader_params, visible_rows
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors

pytestmark = pytest.mark.integration

TOTAL = 1200
# (client, project, group) by i % 6: two clients, global rows, projects in and out of groups.
SLOTS = (("acme", "", ""), ("acme", "web", "fe"), ("acme", "api", "be"), ("acme", "", "fe"),
         ("beta", "web", "fe"), ("", "", ""))  # fmt: skip
READERS = (Scope("acme", "web", "fe"), Scope("acme"), Scope("beta", "web", "fe"), Scope(""))


def _exact(filters: str = "") -> str:
    """Every visible row's distance computed, no index: the answer the scan must give."""
    return (
        f"SELECT id FROM chunks c WHERE {visible_rows(1, 'c')} {filters} "
        "ORDER BY (embedding <=> $4) + 0, id LIMIT $5"
    )


@pytest.fixture(scope="module")
async def vectors(pool: asyncpg.Pool, migrated_settings: Settings) -> AsyncIterator[np.ndarray]:
    """``TOTAL`` chunks with random unit vectors over ``SLOTS``; kinds and tags alternate.
    Written once for the module, never changed."""
    vectors = unit_vectors(11, TOTAL, migrated_settings.embedding_dim)
    records = [
        (f"c{i:05d}", f"doc:{i}", 0, "code" if i % 4 == 1 else "note", *SLOTS[i % 6], f"n{i}",
         vector, f"h{i}", ["odd"] if i % 2 else [])
        for i, vector in enumerate(vectors)
    ]  # fmt: skip
    async with pool.acquire() as conn:
        await replace_chunks(conn, records, extra=("tags",))
    yield vectors


@pytest.mark.parametrize("reader", READERS, ids=lambda s: s.describe())
async def test_a_query_like_no_chunk_gets_the_exact_answer_from_the_scan(
    pool: asyncpg.Pool, vectors: np.ndarray, reader: Scope
) -> None:
    index = PgChunkIndex(pool)
    for seed in range(3):
        query = unit_vectors(100 + seed, 1, vectors.shape[1])[0]  # unrelated: similarity ~0
        rows, scanned = await index.nearest_rows(query, reader, SearchFilters(), 10)
        assert scanned
        expected = [r["id"] for r in await pool.fetch(_exact(), *reader_params(reader), query, 10)]
        assert len(expected) == 10
        assert [r["id"] for r in rows] == expected
        scores = [float(r["score"]) for r in rows]
        assert scores == sorted(scores, reverse=True)
        assert all(abs(s - float(query @ vectors[int(r["id"][1:])])) < 1e-5 for s, r in
                   zip(scores, rows, strict=True))  # fmt: skip


async def test_filters_narrow_the_exact_scan_as_they_narrow_the_walk(
    pool: asyncpg.Pool, vectors: np.ndarray
) -> None:
    reader = Scope("acme")
    query = unit_vectors(200, 1, vectors.shape[1])[0]
    filters = SearchFilters(kinds=("code",), tags=("odd",))
    rows, scanned = await PgChunkIndex(pool).nearest_rows(query, reader, filters, 10)
    assert scanned
    where = "AND c.kind = 'code' AND c.tags && '{odd}'"
    expected = await pool.fetch(_exact(where), *reader_params(reader), query, 10)
    assert [r["id"] for r in rows] == [r["id"] for r in expected]
    assert len(rows) == 10


async def test_a_query_near_a_chunk_is_answered_by_the_walk(
    pool: asyncpg.Pool, vectors: np.ndarray
) -> None:
    rows, scanned = await PgChunkIndex(pool).nearest_rows(
        vectors[6], Scope("acme"), SearchFilters(), 10
    )
    assert not scanned
    assert rows[0]["id"] == "c00006"
    assert float(rows[0]["score"]) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(
    "scan",
    [
        VectorScan(exact_max_rows=TOTAL // 3),
        VectorScan(exact_below=-1.0),
        VectorScan(exact_max_rows=0),
    ],
    ids=["over-the-cap", "below-off", "cap-off"],
)
async def test_without_the_scan_the_walk_answers(
    pool: asyncpg.Pool, vectors: np.ndarray, scan: VectorScan
) -> None:
    query = unit_vectors(300, 1, vectors.shape[1])[0]
    # acme and the global rows hold 5/6 of the chunks, above TOTAL // 3.
    rows, scanned = await PgChunkIndex(pool, scan).nearest_rows(
        query, Scope("acme"), SearchFilters(), 10
    )
    assert not scanned
    assert len(rows) == 10


async def test_the_cap_counts_the_readers_clients_only(
    pool: asyncpg.Pool, vectors: np.ndarray
) -> None:
    # beta and the global rows hold 400 chunks, acme and the global rows 1,000.
    index = PgChunkIndex(pool, VectorScan(exact_max_rows=500))
    query = unit_vectors(400, 1, vectors.shape[1])[0]
    _, small = await index.nearest_rows(query, Scope("beta", "web", "fe"), SearchFilters(), 10)
    _, large = await index.nearest_rows(query, Scope("acme", "web", "fe"), SearchFilters(), 10)
    assert (small, large) == (True, False)
