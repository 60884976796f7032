"""An in-process runtime on the real stack and a helper to run GraphQL against it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis
import strawberry
from strawberry.types import ExecutionResult

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import BACKGROUND_PRIORITY
from kenning.resolvers.context import Context
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from kenning.settings import Settings
from kenning.storage.embedders.constant import ConstantTimeEmbedder


class CountingEmbedder:
    """The constant-time embedder, counting the texts it was asked to embed."""

    def __init__(self, dimension: int) -> None:
        self.inner = ConstantTimeEmbedder(dimension)
        self.calls = 0
        self.texts = 0

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        self.calls += 1
        self.texts += len(texts)
        return await self.inner.embed(texts, priority=priority)

    async def aclose(self) -> None:
        await self.inner.aclose()


ROOT = Principal(key_id="test-root", scope=Scope(), role=Role.ADMIN)


class Api:
    """Runs GraphQL operations in process against a real runtime, as ``principal``
    (a global admin unless told otherwise)."""

    def __init__(self, runtime: Runtime, principal: Principal = ROOT) -> None:
        self.runtime = runtime
        self.principal = principal
        self.schema: strawberry.Schema = build_schema()

    def as_(self, principal: Principal) -> Api:
        """The same API called by another principal."""
        return Api(self.runtime, principal)

    async def execute(self, query: str, **variables: Any) -> ExecutionResult:
        """The whole result, errors included (as a client receives them)."""
        context = Context(runtime=self.runtime, principal=self.principal)
        return await self.schema.execute(query, variable_values=variables, context_value=context)

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        result = await self.execute(query, **variables)
        assert result.errors is None, result.errors
        assert result.data is not None
        return result.data


@pytest.fixture
async def clean(pool: asyncpg.Pool, migrated_settings: Settings) -> None:
    """Each test starts from an empty knowledge base, with no connections or jobs (writes
    may only name registered connections, so one test's must not leak into the next)."""
    graph = migrated_settings.graph_name
    async with pool.acquire() as conn:
        await conn.execute(
            "TRUNCATE chunks, sources, source_mentions, aliases, project_groups, "
            f'ingestion_jobs, connections, {graph}."Entity", {graph}."REL"'
        )


@pytest.fixture
async def embedder(migrated_settings: Settings) -> CountingEmbedder:
    return CountingEmbedder(migrated_settings.embedding_dim)


@pytest.fixture
async def runtime(
    pool: asyncpg.Pool, migrated_settings: Settings, embedder: CountingEmbedder, clean: None
) -> AsyncIterator[Runtime]:
    redis = aioredis.from_url(migrated_settings.redis_url)
    yield Runtime(settings=migrated_settings, pool=pool, redis=redis, embedder=embedder)
    await redis.aclose()


@pytest.fixture
def api(runtime: Runtime) -> Api:
    return Api(runtime)


async def graph_edges(
    pool: asyncpg.Pool, graph: str
) -> set[tuple[str, str, str, str, tuple[str, ...]]]:
    """Every edge as (client, from, type, to, evidence), read through Cypher."""
    rows = await pool.fetch(
        f"SELECT * FROM cypher('{graph}', $$ MATCH (a)-[r]->(b) RETURN r.client, a.key, "
        "r.edgeType, b.key, r.evidenceChunkIds $$) AS (c agtype, a agtype, t agtype, "
        "b agtype, e agtype)"
    )
    import json

    return {
        (json.loads(r["c"]), json.loads(r["a"]), json.loads(r["t"]), json.loads(r["b"]),
         tuple(json.loads(r["e"])))
        for r in rows
    }  # fmt: skip


async def graph_vertices(pool: asyncpg.Pool, graph: str) -> list[tuple[str, str]]:
    """Every vertex as (client, key), read through Cypher, sorted (duplicates kept)."""
    rows = await pool.fetch(
        f"SELECT * FROM cypher('{graph}', $$ MATCH (v) RETURN v.client, v.key $$) "
        "AS (c agtype, k agtype)"
    )
    import json

    return sorted((json.loads(r["c"]), json.loads(r["k"])) for r in rows)
