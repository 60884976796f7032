"""The server side of the ingest benchmark and its client.

``serve`` is the child process (``SERVE`` starts it through ``bench._processes``):
``create_app`` under uvicorn, given a ``CountingEmbedder`` whose counts it serves at
``/bench/embedder``. ``send_all`` drives ``ingest`` mutations at it at a fixed concurrency.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx

from bench._ingest_database import CLIENT
from bench.corpus import Document
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.priorities import BACKGROUND_PRIORITY
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys

SERVE = ("-m", "bench.ingest", "--serve")
REQUEST_TIMEOUT = 300.0  # the local model may queue a request behind many others
INGEST = """
mutation($input: IngestInput!) {
  ingest(input: $input) {
    __typename
    ... on IngestSuccess { status chunks { id } nodes edges { edgeType } }
    ... on ValidationError { code message }
    ... on SensitiveContentError { code message }
    ... on ScopeError { code message }
  }
}"""
PURGE = """
mutation($urn: String!) {
  purgeSource(scope: {clientId: "bench"}, sourceUrn: $urn) { __typename }
}"""


@dataclass(frozen=True, slots=True)
class Sent:
    """One ingest as the client saw it."""

    status: str
    chunks: int
    nodes: int
    edges: int
    seconds: float


class CountingEmbedder:
    """The configured embedder, counting calls and texts into a shared dict."""

    def __init__(self, inner: Embedder, counts: dict[str, int]) -> None:
        self.inner = inner
        self.counts = counts

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        self.counts["calls"] += 1
        self.counts["texts"] += len(texts)
        return await self.inner.embed(texts, priority=priority)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def warm_up(self) -> None:
        """Forwarded, so the server loads a model at startup as it does unwrapped."""
        inner = getattr(self.inner, "warm_up", None)
        if inner is not None:
            await inner()


def serve() -> None:
    """Server-process entry: ``create_app`` from ``KENNING_*`` (port included) with its
    embedder counted."""
    import uvicorn
    from starlette.responses import JSONResponse
    from starlette.types import Receive, Send
    from starlette.types import Scope as AsgiScope

    from kenning.app import create_app
    from kenning.storage.embedders.factory import create_embedder

    counts = {"calls": 0, "texts": 0}
    settings = Settings()
    # The factory loads nothing yet; the app warms the model up and closes it in its lifespan.
    app = create_app(settings, embedder=CountingEmbedder(create_embedder(settings), counts))

    async def counted(scope: AsgiScope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/bench/embedder":
            await JSONResponse(counts)(scope, receive, send)
        else:
            await app(scope, receive, send)

    uvicorn.run(
        counted, host=settings.host, port=settings.port, log_config=None, ws="websockets-sansio",
        lifespan="on",
    )  # fmt: skip


async def agent_key(pool: asyncpg.Pool) -> str:
    """An agent key of the benchmark's client, in the benchmark's own database."""
    api_key, _ = await PgApiKeys(pool).create(Scope(CLIENT), Role.AGENT, label="bench")
    return api_key


# --- the client -----------------------------------------------------------------------


async def _graphql(client: httpx.AsyncClient, query: str, **variables: object) -> Any:
    response = await client.post("/graphql", json={"query": query, "variables": variables})
    response.raise_for_status()
    body = response.json()
    if body.get("errors"):
        raise RuntimeError(f"GraphQL errors: {body['errors']}")
    return body["data"]


async def send(client: httpx.AsyncClient, doc: Document) -> Sent:
    """One ``ingest`` mutation; anything but ``IngestSuccess`` is an error here."""
    document = {
        "sourceUrn": doc.source_urn,
        "kind": doc.kind,
        "content": doc.content,
        "mainNodeKey": doc.main_node_key,
        "scope": {"clientId": CLIENT},
    }
    started = time.perf_counter()
    result = (await _graphql(client, INGEST, input=document))["ingest"]
    seconds = time.perf_counter() - started
    if result["__typename"] != "IngestSuccess":
        raise RuntimeError(f"{doc.source_urn} was not ingested: {result}")
    return Sent(
        result["status"], len(result["chunks"]), len(result["nodes"]), len(result["edges"]),
        seconds,
    )  # fmt: skip


async def send_all(client: httpx.AsyncClient, docs: Sequence[Document], workers: int) -> list[Sent]:
    """Every document once, ``workers`` requests in flight."""
    results: list[Sent | None] = [None] * len(docs)
    indexes = iter(range(len(docs)))  # shared: each index is taken by one worker, once

    async def worker() -> None:
        for index in indexes:
            results[index] = await send(client, docs[index])

    async with asyncio.TaskGroup() as group:
        for _ in range(workers):
            group.create_task(worker())
    return [r for r in results if r is not None]


async def embedder_counts(client: httpx.AsyncClient) -> dict[str, int]:
    """Embedder calls and texts the server made so far."""
    response = await client.get("/bench/embedder")
    response.raise_for_status()
    counts: dict[str, int] = response.json()
    return counts


async def warm_up(client: httpx.AsyncClient, workers: int) -> None:
    """Open the server's pool connections and load the model, then leave no trace."""
    docs = [
        Document(f"bench:warmup-{i}", "bench", f"bench:warmup-{i}", f"Warm-up {i}.\n")
        for i in range(workers)
    ]
    await send_all(client, docs, workers)
    for doc in docs:
        await _graphql(client, PURGE, urn=doc.source_urn)
