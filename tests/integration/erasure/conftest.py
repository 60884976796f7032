"""The erasure tests' world: the person written into acme and globex alike."""

from __future__ import annotations

import asyncpg
import pytest

from kenning.runtime import Runtime
from tests.support.erasure_world import Seeded, seed
from tests.support.graphql_api import Api


@pytest.fixture
async def world(api: Api, runtime: Runtime, pool: asyncpg.Pool) -> dict[str, Seeded]:
    async with pool.acquire() as conn:
        await conn.execute("DELETE FROM source_files")
    return {c: await seed(api, runtime, c) for c in ("acme", "globex")}
