"""The server side of the ingest benchmark and its client.

``serve`` is the child process: ``create_app`` under uvicorn, given a ``CountingEmbedder``
whose counts it serves at ``/bench/embedder``. ``running_server`` starts that process on a
free loopback port; ``send_all`` drives ``ingest`` mutations at it at a fixed concurrency.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import asyncpg
import httpx

from bench._ingest_database import CLIENT
from bench.corpus import Document
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import BACKGROUND_PRIORITY, Embedder
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys

ROOT = Path(__file__).resolve().parents[1]
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


def serve(port: int) -> None:
    """Server-process entry: ``create_app`` from ``KENNING_*`` with its embedder counted."""
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
        counted, host="127.0.0.1", port=port, log_config=None, ws="websockets-sansio",
        lifespan="on",
    )  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True, slots=True)
class Server:
    """A running server process and a client bound to it."""

    pid: int
    client: httpx.AsyncClient


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-3000:]


@asynccontextmanager
async def running_server(
    settings: Settings, concurrency: int, api_key: str
) -> AsyncIterator[Server]:
    """Start the server process on a free loopback port; stop it on exit."""
    port = _free_port()
    env = {
        **os.environ,
        "KENNING_DATABASE_URL": settings.database_url,
        "KENNING_REDIS_URL": settings.redis_url,
        "KENNING_EMBEDDER": settings.embedder.value,
        "KENNING_EMBEDDING_MODEL": settings.embedding_model,
        "KENNING_EMBEDDING_DIM": str(settings.embedding_dim),
        "KENNING_GRAPH_NAME": settings.graph_name,
        "KENNING_LOG_LEVEL": "WARNING",
        "HF_HUB_OFFLINE": "1",
    }
    with tempfile.TemporaryFile() as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.ingest", "--serve", str(port),
            cwd=ROOT, env=env, stdout=log, stderr=log,
        )  # fmt: skip
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}",
                headers={"Authorization": f"Bearer {api_key}"},
                timeout=REQUEST_TIMEOUT,
                limits=httpx.Limits(max_connections=concurrency),
            ) as client:
                for _ in range(600):  # up to a minute
                    if process.returncode is not None:
                        raise RuntimeError(f"the server exited:\n{_tail(log)}")
                    try:
                        if (await client.get("/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.1)
                else:
                    raise RuntimeError(f"the server did not become ready:\n{_tail(log)}")
                yield Server(process.pid, client)
        finally:
            if process.returncode is None:
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await asyncio.wait_for(process.wait(), 5)
            if process.returncode not in (0, -15):
                print(f"server exit code {process.returncode}:\n{_tail(log)}", file=sys.stderr)


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
