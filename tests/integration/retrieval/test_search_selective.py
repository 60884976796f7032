"""A reader who sees 1 % of the chunks still gets ``limit`` vector hits (iterative scans)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import asyncpg
import numpy as np
import pytest
import redis.asyncio as aioredis
from pgvector.asyncpg import register_vector

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import NO_GROUPS, Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn
from kenning.storage.db.visibility import reader_params
from kenning.storage.retrieval import vector_sql
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

TOTAL, MINE = 3000, 30
RARE = (1, 199)  # visible to project p1 of group g1 (1 % 99 == 199 % 99 == 1)
READER = Scope("acme", "web", "frontend")
SEARCH = """
{ search(query: "deploy checklist", mode: VECTOR, limit: 10) {
    ... on SearchSuccess { hits { vectorRank chunk { scope { clientId projectId groupId } } } }
} }"""


@pytest.fixture(scope="module")
async def selective(pool: asyncpg.Pool, migrated_settings: Settings) -> AsyncIterator[Api]:
    """3,000 chunks of one client with random unit vectors, in 100 projects of 50 groups;
    30 in the reader's project, spread evenly; two tagged ``rare``. Written once for the
    module (the HNSW inserts are the slow part), read by every test, never changed."""
    vectors = unit_vectors(7, TOTAL, migrated_settings.embedding_dim)
    records = []
    for i, vector in enumerate(vectors):
        mine = i % (TOTAL // MINE) == 0
        project, group = ("web", "frontend") if mine else (f"p{i % 99}", f"g{i % 49}")
        tags = ["rare"] if i in RARE else []
        records.append(
            (f"c{i:05d}", f"doc:{i}", 0, "note", "acme", project, group,
             f"note number {i}", vector, f"h{i}", tags)
        )  # fmt: skip
    async with pool.acquire() as conn:
        await replace_chunks(conn, records, extra=("tags",))
    redis = aioredis.from_url(migrated_settings.redis_url)
    runtime = Runtime(
        settings=migrated_settings,
        pool=pool,
        redis=redis,
        embedder=CountingEmbedder(migrated_settings.embedding_dim),
    )
    yield Api(runtime, Principal(key_id="reader", scope=READER, role=Role.UI))
    await redis.aclose()


async def test_vector_search_returns_the_limit_from_a_one_percent_scope(selective: Api) -> None:
    hits = (await selective(SEARCH))["search"]["hits"]
    assert len(hits) == 10
    assert [h["vectorRank"] for h in hits] == list(range(1, 11))
    for hit in hits:
        scope = hit["chunk"]["scope"]
        row = Scope(scope["clientId"], scope["projectId"], scope["groupId"])
        assert READER.can_see(row, NO_GROUPS)  # the fixture records no project groups


@pytest.fixture
async def hnsw_pool(migrated_settings: Settings) -> AsyncIterator[asyncpg.Pool]:
    """Connections whose planner walks the HNSW index, as it does when the visible set is
    large or misestimated (here it would rather read the 30 rows by the scope index)."""
    forced = await asyncpg.create_pool(
        asyncpg_dsn(migrated_settings.database_url),
        min_size=1,
        max_size=2,
        server_settings={"enable_seqscan": "off", "enable_bitmapscan": "off"},
        init=register_vector,
    )
    assert forced is not None
    yield forced
    await forced.close()


async def test_on_the_hnsw_index_the_iterative_scan_is_what_fills_the_limit(
    selective: Api, pool: asyncpg.Pool, hnsw_pool: asyncpg.Pool
) -> None:
    query = np.random.default_rng(1).standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    exact = [
        r["id"]
        for r in await pool.fetch(
            "SELECT id FROM chunks WHERE project_id = 'web' ORDER BY embedding <=> $1 LIMIT 10",
            query,
        )
    ]
    statement = vector_sql.nearest(SearchFilters())
    async with hnsw_pool.acquire() as conn, conn.transaction():
        await conn.execute(vector_sql.SCAN_SETTINGS, "100", "off", "50000")
        args = (*reader_params(READER), query, 10)
        plan = "\n".join(r[0] for r in await conn.fetch(f"EXPLAIN {statement.text}", *args))
        starved = await conn.fetch(statement.text, *args)
    # Each partition of ``chunks`` has its own HNSW index (``chunks_pNN_embedding_idx``).
    assert re.search(r"Index Scan using chunks_p\d+_embedding_idx", plan), plan
    assert len(starved) < 10  # 100 candidates (ef_search), about 1 % of them visible
    for order in ("relaxed_order", "strict_order"):
        # The walk itself: no exact scan for this random query's low similarities.
        index = PgChunkIndex(hnsw_pool, VectorScan(100, 50_000, order, exact_below=-1.0))
        found = await index.nearest(query.tolist(), READER, SearchFilters(), 10)
        assert [h.chunk.id for h in found] == exact


async def test_the_index_adapter_returns_exact_order_and_honours_filters(
    selective: Api, pool: asyncpg.Pool
) -> None:
    query = np.random.default_rng(2).standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    # The walk and the exact scan (which this random query's low similarities choose).
    for exact_below in (-1.0, 0.3):
        scan = VectorScan(ef_search=100, max_scan_tuples=50_000, exact_below=exact_below)
        index = PgChunkIndex(pool, scan)
        found = await index.nearest(query.tolist(), READER, SearchFilters(), 10)
        assert len(found) == 10
        assert all(h.chunk.scope == READER for h in found)
        assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)
        # A selective filter on top of a broad scope: two tagged chunks among a project's 30.
        broad = Scope("acme", "p1", "g1")
        rare = await index.nearest(query.tolist(), broad, SearchFilters(tags=("rare",)), 10)
        assert sorted(h.chunk.id for h in rare) == ["c00001", "c00199"]
