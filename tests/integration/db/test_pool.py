"""The asyncpg pool: AGE works on every checkout, pgvector values round-trip."""

from __future__ import annotations

import asyncpg
import numpy as np
import pytest

from kenning.settings import Settings
from kenning.storage.db.pool import create_pool

pytestmark = pytest.mark.integration


async def _cypher_count(conn: asyncpg.pool.PoolConnectionProxy, graph: str) -> int:
    value = await conn.fetchval(
        f"SELECT c FROM cypher('{graph}', $$ MATCH (n) RETURN count(n) $$) AS (c agtype)"
    )
    return int(str(value))


async def test_cypher_works_after_the_connection_went_back_to_the_pool(
    migrated_settings: Settings,
) -> None:
    settings = migrated_settings.model_copy(update={"db_pool_max": 1})
    pool = await create_pool(settings, min_size=1)
    try:
        async with pool.acquire() as conn:
            first_pid = conn.get_server_pid()
            assert await _cypher_count(conn, settings.graph_name) >= 0
            # What the pool does on release anyway; done here too so the test cannot pass
            # by the pool skipping it.
            await conn.execute("RESET ALL")
        async with pool.acquire() as conn:
            assert conn.get_server_pid() == first_pid, "expected the same pooled connection"
            assert "ag_catalog" in await conn.fetchval("SHOW search_path")
            assert await _cypher_count(conn, settings.graph_name) >= 0
    finally:
        await pool.close()


async def test_plain_set_search_path_would_be_lost_on_release(migrated_settings: Settings) -> None:
    # Documents why the pool sets search_path as a startup parameter: a SET does not survive.
    settings = migrated_settings.model_copy(update={"db_pool_max": 1})
    pool = await create_pool(settings, min_size=1)
    try:
        async with pool.acquire() as conn:
            await conn.execute("SET search_path = public")
        async with pool.acquire() as conn:
            assert "ag_catalog" in await conn.fetchval("SHOW search_path")
    finally:
        await pool.close()


async def test_pgvector_cosine_distance_and_round_trip(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        distance = await conn.fetchval(
            "SELECT $1::vector <=> $2::vector", np.array([1.0, 0.0]), np.array([0.0, 1.0])
        )
        assert distance == pytest.approx(1.0)
        back = await conn.fetchval("SELECT $1::vector", np.array([0.25, -0.5, 1.0]))
        assert back.to_list() == [0.25, -0.5, 1.0]


async def test_cypher_create_and_match_through_the_pool(
    pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    graph = migrated_settings.graph_name
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            f"SELECT * FROM cypher('{graph}', $$ CREATE (:Entity {{key: 'test:pool'}}) $$) "
            "AS (v agtype)"
        )
        found = await conn.fetchval(
            f"SELECT k FROM cypher('{graph}', $$ MATCH (n:Entity {{key: 'test:pool'}}) "
            "RETURN n.key $$) AS (k agtype)"
        )
        assert str(found) == '"test:pool"'
        # Leave no trace for other tests.
        await conn.execute(
            f"SELECT * FROM cypher('{graph}', $$ MATCH (n:Entity {{key: 'test:pool'}}) "
            "DELETE n $$) AS (v agtype)"
        )
