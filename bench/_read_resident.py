"""Resident copies loaded on every path before ``bench.read``'s passes, so the three paths
answer alike: the bench process's own (``SqlReads``, ``DomainReads``) at once, the server's,
which its first name queries start loading in the background, waited for through
``/metrics`` (``kenning_search_resident_rows``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from bench._read_corpus import READER
from kenning.storage.retrieval.chunk_search import PgChunkIndex

WAIT = 120.0  # seconds the server may take
POLL = 0.5


async def server_rows(client: httpx.AsyncClient) -> int:
    """The resident rows the server holds now."""
    metrics = (await client.get("/metrics")).text
    for line in metrics.splitlines():
        if line.startswith("kenning_search_resident_rows "):
            return int(float(line.split()[-1]))
    return 0


async def warm_resident(
    sql: PgChunkIndex, domain: PgChunkIndex, client: httpx.AsyncClient
) -> dict[str, Any]:
    """Every path's copies of ``READER``'s clients loaded; the rows each path holds and how
    long the server took."""
    rows = {"sql": await sql.warm(READER), "domain": await domain.warm(READER)}
    started = time.perf_counter()
    for _ in range(int(WAIT / POLL)):
        if (held := await server_rows(client)) >= rows["sql"]:
            break
        await asyncio.sleep(POLL)
    rows["graphql"] = held
    if held < rows["sql"]:
        raise RuntimeError(f"the server did not load its resident copies in {WAIT:.0f} s: {rows}")
    return {"rows": rows, "server_wait_s": time.perf_counter() - started}
