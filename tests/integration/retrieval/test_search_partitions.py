"""Searches read the reader's client's partition and the global one, never a neighbour's rows.

``chunks`` is hash-partitioned by client (migration 0016). A tenant whose id hashes to the
same partition as the reader's (``twin``) holds the same texts, vectors and even chunk ids:
the scope predicate, not the partitioning, is what keeps them apart, and this checks it on
both search arms.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import asyncpg
import numpy as np
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params
from kenning.storage.retrieval import vector_sql
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors

pytestmark = pytest.mark.integration

READER = Scope("acme", "web", "")


async def _partition(conn: Connection, client: str) -> str:
    found = await conn.fetchval(
        "SELECT format('chunks_p%s', lpad(r::text, 2, '0')) FROM generate_series(0, 15) r "
        "WHERE satisfies_hash_partition('chunks'::regclass, 16, r, $1::varchar)",
        client,
    )
    return str(found)


async def _twin(conn: Connection) -> str:
    """A client id other than the reader's that lands in the reader's partition."""
    home = await _partition(conn, READER.client_id)
    for i in range(1000):
        if await _partition(conn, f"tenant-{i}") == home:
            return f"tenant-{i}"
    raise AssertionError("no client id shares the reader's partition")


@pytest.fixture
async def tenants(pool: asyncpg.Pool, migrated_settings: Settings) -> AsyncIterator[str]:
    """The same 40 chunks (ids, texts, vectors) for the reader's client, its twin and a
    client in another partition; 5 global ones."""
    vectors = unit_vectors(3, 40, migrated_settings.embedding_dim)
    async with pool.acquire() as conn:
        twin = await _twin(conn)
        records = [
            (f"c{i:02d}", f"doc:{i}", 0, "note", client, "web" if client else "", "",
             f"rollout checklist step {i}", vectors[i], f"h{i}")
            for client in (READER.client_id, twin, "beta")
            for i in range(40)
        ] + [(f"g{i}", f"doc:g{i}", 0, "note", "", "", "", f"rollout guide {i}", vectors[i],
              f"g{i}") for i in range(5)]  # fmt: skip
        await replace_chunks(conn, records)
    yield twin
    await pool.execute("TRUNCATE chunks")


async def test_a_client_readers_vector_search_plans_two_partitions(
    pool: asyncpg.Pool, tenants: str
) -> None:
    """Also in a generic plan (a prepared statement's after a few runs), where the scope's
    parameters are unknown when planning and only the hint lets PostgreSQL prune."""
    async with pool.acquire() as conn, conn.transaction():
        wanted = {await _partition(conn, READER.client_id), await _partition(conn, "")}
        other = await _partition(conn, "beta")
        await conn.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        vector = "[" + ",".join(["1"] + ["0"] * 383) + "]"
        plans = []
        for name, one_client in (("scoped", True), ("every", False)):
            text = vector_sql.nearest(SearchFilters(), one_client=one_client).text
            await conn.execute(f"PREPARE {name} (text, text, text, vector, int) AS {text}")
            # The test's own constants: EXPLAIN EXECUTE takes no parameters of its own.
            values = ", ".join(f"'{v}'" for v in (*reader_params(READER), vector))
            rows = await conn.fetch(f"EXPLAIN EXECUTE {name}({values}, 10)")
            plans.append("\n".join(r[0] for r in rows))
            await conn.execute(f"DEALLOCATE {name}")
        plan, broad = plans
    assert set(re.findall(r" on (chunks_p\d\d)", plan)) == wanted
    assert other not in wanted and other in broad  # without the hint every partition is read


async def test_neither_arm_returns_the_twin_tenants_rows(pool: asyncpg.Pool, tenants: str) -> None:
    index = PgChunkIndex(pool)
    walk = PgChunkIndex(pool, VectorScan(exact_below=-1.0))  # no exact scan
    rng = np.random.default_rng(4)
    for _ in range(5):
        query = rng.standard_normal(384).astype(np.float32)
        for vectors in (index, walk):
            near = await vectors.nearest(query.tolist(), READER, SearchFilters(), 45)
            assert {h.chunk.scope.client_id for h in near} == {READER.client_id, ""}
            assert len(near) == 45  # all 40 of the reader's and the 5 global chunks
    for text in ("rollout checklist", "step 7", "rollout"):
        found = await index.matching(text, READER, SearchFilters(), 100)
        assert found and {h.chunk.scope.client_id for h in found} <= {READER.client_id, ""}
        twin_reader = await index.matching(text, Scope(tenants, "web", ""), SearchFilters(), 100)
        assert {h.chunk.scope.client_id for h in twin_reader} <= {tenants, ""}
