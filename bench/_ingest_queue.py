"""The queue phase of the ingest benchmark: the same documents through ``requestIngestion``.

Every document is requested at once (the bulk lane, priority 3) and the in-server worker
of ``kenning serve`` (``KENNING_QUEUE_WORKERS=1``, ``bulk_slots`` jobs at a time) indexes
them; the phase ends when the last job is INDEXED. Chunks per second of this phase are
comparable with the ``ingest`` phase's: same chunks, same model, same server process.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence

import asyncpg
import httpx

from bench._ingest_database import CLIENT
from bench._queue_harness import REQUEST, until
from bench.corpus import Document

DONE_WITHIN = 1800.0  # seconds for the whole phase; the local model on 2 busy cores is slow


async def queue_phase(
    client: httpx.AsyncClient, pool: asyncpg.Pool, docs: Sequence[Document], bulk_slots: int
) -> dict[str, float | int | str]:
    """Request every document, wait for every job, and count the chunks they stored."""
    await pool.execute("TRUNCATE ingestion_jobs")
    started = time.perf_counter()
    for doc in docs:
        await _request(client, doc)

    async def finished() -> bool:
        failed = await _jobs(pool, "status NOT IN ('QUEUED', 'RUNNING', 'INDEXED')")
        if failed:
            raise RuntimeError(f"{failed} queued ingestions did not end INDEXED")
        return await _jobs(pool, "status = 'INDEXED'") == len(docs)

    await until(finished, within=DONE_WITHIN, every=0.05)
    wall = time.perf_counter() - started
    chunks = int(await pool.fetchval("SELECT count(*) FROM chunks"))
    return {
        "workers": "in-server worker of kenning serve (KENNING_QUEUE_WORKERS=1)",
        "bulk_slots": bulk_slots, "jobs": len(docs), "chunks": chunks, "wall_s": wall,
        "docs_per_s": len(docs) / wall, "chunks_per_s": chunks / wall,
    }  # fmt: skip


async def _request(client: httpx.AsyncClient, doc: Document) -> None:
    variables = {
        "input": {"sourceUrn": doc.source_urn, "kind": doc.kind, "content": doc.content,
                  "mainNodeKey": doc.main_node_key, "scope": {"clientId": CLIENT}},
        "identity": {"sourceKind": "bench",
                     "contentVersion": hashlib.sha256(doc.content.encode()).hexdigest()},
    }  # fmt: skip
    response = await client.post("/graphql", json={"query": REQUEST, "variables": variables})
    response.raise_for_status()
    handle = response.json()["data"]["requestIngestion"]
    if handle.get("__typename") != "IngestionHandle":
        raise RuntimeError(f"{doc.source_urn} was not queued: {handle}")


async def _jobs(pool: asyncpg.Pool, where: str) -> int:
    return int(await pool.fetchval(f"SELECT count(*) FROM ingestion_jobs WHERE {where}"))
