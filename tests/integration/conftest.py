"""Integration fixtures shared by every feature folder: an in-process runtime on the real
stack, emptied before each test, and GraphQL run against it (the queue folder and a few
modules override them with their own database or embedder)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.counting_embedder import CountingEmbedder
from tests.support.file_uploads import Uploads, running_uploads
from tests.support.graphql_api import Api


@pytest.fixture
async def clean(pool: asyncpg.Pool, migrated_settings: Settings) -> None:
    """Each test starts from an empty knowledge base, with no connections or jobs (writes
    may only name registered connections, so one test's must not leak into the next)."""
    graph = migrated_settings.graph_name
    async with pool.acquire() as conn:
        await conn.execute(
            "TRUNCATE chunks, sources, source_mentions, aliases, project_groups, "
            "ingestion_jobs, connections, session_entries, procedures, hard_rules, check_ins, "
            "knowledge_versions, procedure_versions, changes, node_property_versions, "
            "extraction_cache, relations, edge_intervals, edge_endings, chunk_marks, "
            "erasure_receipts, erasure_tombstones, "
            f'{graph}."Entity", {graph}."REL"'
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


@pytest.fixture
async def uploads(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    """The app in process with its queue worker and agent keys of acme and globex, over no
    stored originals (the file tests' ``ingestFile`` over HTTP)."""
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    async with running_uploads(migrated_settings, pool) as running:
        yield running
