"""``/readyz``'s ``pgvector`` part says when the cosine distance lost the cost migration 0020
gives it (a dump and restore, or the extension created again)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.settings import Settings
from kenning.storage.db.health import DISTANCE_COST, probe_parts, set_distance_cost

pytestmark = pytest.mark.integration


@pytest.fixture
async def priced(pool: asyncpg.Pool) -> AsyncIterator[None]:
    """The migrated cost before and after, whatever an earlier, killed run left."""
    await pool.execute(set_distance_cost(DISTANCE_COST))
    yield
    await pool.execute(set_distance_cost(DISTANCE_COST))


async def _vector_part(pool: asyncpg.Pool, redis: aioredis.Redis, graph: str) -> tuple[bool, str]:
    [part] = [p for p in await probe_parts(pool, redis, graph) if p.name == "pgvector"]
    return part.up, part.detail


async def test_readiness_says_when_the_cost_was_reset(
    priced: None, pool: asyncpg.Pool, redis_client: aioredis.Redis, migrated_settings: Settings
) -> None:
    graph = migrated_settings.graph_name
    assert await _vector_part(pool, redis_client, graph) == (True, "ok")
    await pool.execute(set_distance_cost(1))
    up, detail = await _vector_part(pool, redis_client, graph)
    assert up  # searches still work: the part is up, with what to fix said
    assert detail.startswith("ok, but cosine_distance(vector, vector) has cost 1 ")
    assert f"COST {DISTANCE_COST}" in detail
