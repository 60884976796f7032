"""Fixtures of the sources tests: a runtime whose repository root is ``<tmp>/repos``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.counting_embedder import CountingEmbedder


@pytest.fixture
async def repo_runtime(
    pool: asyncpg.Pool,
    migrated_settings: Settings,
    embedder: CountingEmbedder,
    clean: None,
    tmp_path: Path,
) -> AsyncIterator[Runtime]:
    """A runtime reading local repositories under ``<tmp>/repos``, cloning into ``<tmp>/cache``."""
    roots = {"repository_roots": [str(tmp_path / "repos")], "repository_dir": tmp_path / "cache"}
    settings = migrated_settings.model_copy(update=roots)
    redis = aioredis.from_url(settings.redis_url)
    yield Runtime(settings=settings, pool=pool, redis=redis, embedder=embedder)
    await redis.aclose()
