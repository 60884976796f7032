"""The queue tests' own database name, runtimes over it, and GraphQL helpers for jobs,
including subscriptions run in process."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from strawberry.types import ExecutionResult

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.graphql.context import Context
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.constant import ConstantTimeEmbedder
from tests.support.database import TEST_DATABASE
from tests.support.graphql_api import Api

QUEUE_DATABASE = f"{TEST_DATABASE}_queue"


async def settled_jobs(
    settings: Settings, jobs: list[str], deadline: float
) -> list[asyncpg.Record]:
    """(status, attempts) of ``jobs`` once every one is INDEXED, or as they stand at
    ``deadline`` (``time.monotonic()``), polled every 0.2 s on a pool of its own."""
    pool = await create_pool(settings, min_size=1)
    try:
        while True:
            rows = await pool.fetch(
                "SELECT status, attempts FROM ingestion_jobs WHERE id::text = ANY($1)", jobs
            )
            if all(r["status"] == "INDEXED" for r in rows) or time.monotonic() > deadline:
                return list(rows)
            await asyncio.sleep(0.2)
    finally:
        await pool.close()


async def truncate(pool: asyncpg.Pool, settings: Settings) -> None:
    """Empty the queue database: jobs, connections and the knowledge base."""
    graph = settings.graph_name
    await pool.execute(
        "TRUNCATE ingestion_jobs, connections, chunks, sources, source_mentions, aliases, "
        "project_groups, "
        f'{graph}."Entity", {graph}."REL"'
    )


async def open_runtime(
    settings: Settings, pool: asyncpg.Pool, embedder: Embedder | None = None
) -> Runtime:
    """A runtime over ``pool``; close with ``close_runtime``."""
    return Runtime(
        settings=settings,
        pool=pool,
        redis=aioredis.from_url(settings.redis_url),
        embedder=embedder or ConstantTimeEmbedder(settings.embedding_dim),
    )


async def close_runtime(runtime: Runtime) -> None:
    await runtime.queue.aclose()
    await runtime.redis.aclose()


def agent(client: str, role: Role = Role.AGENT) -> Principal:
    """A principal scoped to one client."""
    return Principal(key_id=f"{client}-{role.value}", scope=Scope(client), role=role)


async def subscribe(api: Api, query: str, **variables: Any) -> AsyncGenerator[dict[str, Any], None]:
    """A subscription run in process, yielding each result's data."""
    context = Context(runtime=api.runtime, principal=api.principal)
    stream = await api.schema.subscribe(query, variable_values=variables, context_value=context)
    if isinstance(stream, ExecutionResult):
        raise AssertionError(stream.errors)
    async for result in stream:
        assert result.errors is None, result.errors
        assert result.data is not None
        yield result.data


async def wait_for(predicate: Any, within: float = 20.0, every: float = 0.05) -> None:
    """Poll an async predicate until true; fail after ``within`` seconds."""
    deadline = asyncio.get_running_loop().time() + within
    while asyncio.get_running_loop().time() < deadline:
        if await predicate():
            return
        await asyncio.sleep(every)
    raise AssertionError(f"not true within {within} s: {predicate}")


REQUEST = """
mutation Request($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename
    ... on IngestionHandle { jobId status position }
    ... on ValidationError { code message field }
    ... on SensitiveContentError { code message }
    ... on ScopeError { code message }
    ... on ConnectionRevokedError { code message connectionId }
  }
}"""


JOB_FIELDS = """id status stage lane priority position attempts nextAttemptAt lastError
    sourceUrn connectionId version finishedAt waitingForModelSince"""


STATUS = f"query Status($id: ID!) {{ ingestionStatus(jobId: $id) {{ {JOB_FIELDS} }} }}"


def doc(urn: str, content: str = "", priority: int = 3, **extra: Any) -> dict[str, Any]:
    """An IngestInput."""
    return {
        "sourceUrn": urn,
        "kind": "note",
        "content": content or f"Notes about {urn}: service:billing depends on service:auth.",
        "priority": priority,
        **extra,
    }


def identity(source_id: str, version: str = "v1", kind: str = "test") -> dict[str, str]:
    return {"sourceKind": kind, "sourceId": source_id, "contentVersion": version}


async def request(api: Api, urn: str, version: str = "v1", **extra: Any) -> dict[str, Any]:
    """``requestIngestion`` for a small document; the handle or error member."""
    data = await api(REQUEST, input=doc(urn, **extra), identity=identity(urn, version))
    result: dict[str, Any] = data["requestIngestion"]
    return result


async def job_status(api: Api, job_id: str) -> dict[str, Any] | None:
    data = await api(STATUS, id=job_id)
    found: dict[str, Any] | None = data["ingestionStatus"]
    return found
