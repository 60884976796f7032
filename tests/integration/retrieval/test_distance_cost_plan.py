"""The planner keeps a partition's HNSW index at a higher ``ef_search`` because migration 0020
prices the cosine distance (at pgvector's cost of 1 it would scan the partition instead)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import numpy as np
import pytest

from bench._read_recall import plan_uses_hnsw
from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.db.health import DISTANCE_COST, distance_cost, set_distance_cost
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params
from kenning.storage.retrieval import vector_sql
from kenning.storage.retrieval.chunk_search import VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors

pytestmark = pytest.mark.integration

ROWS = 6000  # at 3,000 the exact scan is still planned, priced or not (and is cheap)
READER = Scope("acme", "", "")  # client-wide: every row of the partition is visible
EF_SEARCH = VectorScan().ef_search


@pytest.fixture(scope="module")
async def partition(pool: asyncpg.Pool, migrated_settings: Settings) -> AsyncIterator[str]:
    """``ROWS`` chunks of one client with random unit vectors, analyzed; the name of the
    partition that holds them. Emptied afterwards."""
    vectors = unit_vectors(11, ROWS, migrated_settings.embedding_dim)
    records = [
        (f"d{i:05d}", f"doc:{i}", 0, "note", "acme", "", "", f"note {i}", vector, f"h{i}")
        for i, vector in enumerate(vectors)
    ]
    async with pool.acquire() as conn:
        await replace_chunks(conn, records)
        name = await conn.fetchval("SELECT tableoid::regclass::text FROM chunks LIMIT 1")
    yield name
    await pool.execute("TRUNCATE chunks")


async def _plan(conn: Connection, ef_search: int, dimension: int) -> str:
    statement = vector_sql.nearest(SearchFilters(), one_client=True)
    await conn.execute(vector_sql.SCAN_SETTINGS, str(ef_search), "relaxed_order", "50000")
    query = np.ones(dimension, dtype=np.float32) / np.sqrt(dimension)
    args = (*reader_params(READER), query, 10)
    return "\n".join(r[0] for r in await conn.fetch(f"EXPLAIN {statement.text}", *args))


async def test_the_partition_index_is_planned_at_the_default_ef_search(
    partition: str, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    hnsw = f"Index Scan using {partition}_embedding_idx"
    exact = f"Seq Scan on {partition}"
    async with pool.acquire() as conn:
        assert await distance_cost(conn) == DISTANCE_COST
        async with conn.transaction():
            plan = await _plan(conn, EF_SEARCH, migrated_settings.embedding_dim)
        assert hnsw in plan, plan
        tr = conn.transaction()
        await tr.start()
        try:
            await conn.execute(set_distance_cost(1))
            unpriced = await _plan(conn, EF_SEARCH, migrated_settings.embedding_dim)
        finally:
            await tr.rollback()
        assert hnsw not in unpriced and exact in unpriced, unpriced


async def test_the_read_bench_checks_the_plan_under_the_server_s_ef_search(
    partition: str, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    """``bench.read`` reports whether the server's plan used HNSW; the answer changes with
    ``ef_search`` (a high one makes the partition's exact scan cheaper), so the check must
    plan under the server's scan settings, not the session's defaults."""
    statement = vector_sql.nearest(SearchFilters(), one_client=True).text
    query = np.ones(migrated_settings.embedding_dim, dtype=np.float32)
    args = (*reader_params(READER), query, 10)
    assert await plan_uses_hnsw(pool, statement, args, (str(EF_SEARCH), "relaxed_order", "50000"))
    assert not await plan_uses_hnsw(pool, statement, args, ("1000", "relaxed_order", "50000"))
