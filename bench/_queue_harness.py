"""Small helpers the queue benchmark's sections share: the server's settings, bounded waits
and job counts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import asyncpg

from kenning.settings import Settings

REQUEST = """mutation R($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename ... on IngestionHandle { jobId status } } }"""


def one_worker_in_server(settings: Settings) -> Settings:
    """``settings`` for a ``kenning serve`` that works the queue itself, with one worker."""
    return settings.model_copy(update={"queue_workers": 1})


async def until(check: Callable[[], Awaitable[bool]], within: float, every: float = 0.02) -> None:
    deadline = time.monotonic() + within
    while not await check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not done within {within} s")
        await asyncio.sleep(every)


async def truncate(pool: asyncpg.Pool, graph: str) -> None:
    await pool.execute(
        "TRUNCATE ingestion_jobs, chunks, sources, source_mentions, aliases, "
        f'{graph}."Entity", {graph}."REL"'
    )


async def count(pool: asyncpg.Pool, where: str) -> int:
    return int(await pool.fetchval(f"SELECT count(*) FROM ingestion_jobs WHERE {where}"))


async def all_done(pool: asyncpg.Pool, jobs: int) -> bool:
    return await count(pool, "status = 'INDEXED'") >= jobs
