"""Reads against ``kenning serve --workers N``: the server started, every process ready,
a client that notes which process answered, requests/s at a fixed concurrency.

Each answer of a multi-process server names its process in ``x-kenning-worker``. With
``fresh`` connections (the default) every request opens its own, so the kernel hands each
to whichever process accepts first, as a load balancer spreading requests would; with
``keepalive`` the client keeps ``concurrency`` connections, each bound to the process that
accepted it.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any

import asyncpg
import httpx

from bench._processes import Server, running_server
from bench._read_measure import saturate
from bench._read_paths import GraphqlReads
from kenning.settings import Settings

WORKER = "x-kenning-worker"
_TICKS = os.sysconf("SC_CLK_TCK")
ALL_READY_WITHIN = 120.0


def serve_command(workers: int) -> tuple[str, ...]:
    """``python -m kenning serve --workers N``'s arguments."""
    return ("-m", "kenning", "serve", "--workers", str(workers))


async def _all_ready(server: Server, workers: int) -> set[str]:
    """The pids answering ``/readyz`` once ``workers`` of them have; one process answers
    without the header, so it counts as the server's own pid."""
    seen: set[str] = set()
    deadline = time.monotonic() + ALL_READY_WITHIN
    fresh = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=server.url, timeout=5.0, limits=fresh) as client:
        while len(seen) < workers:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(seen)} of {workers} server processes ready")
            try:
                answer = await client.get("/readyz")
                if answer.status_code == 200:
                    seen.add(answer.headers.get(WORKER, str(server.pid)))
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.02)
    return seen


def cpu_seconds(pids: Iterable[int]) -> float:
    """User and system CPU seconds the processes used so far, from ``/proc``."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()  # the name may hold spaces
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total / _TICKS


class CountingClient:
    """An HTTP client to the server that counts the answers of each process; ``pids`` are
    the server's processes (the parent too: uvicorn's supervisor of several)."""

    def __init__(self, server: Server, pids: set[str], concurrency: int, connections: str) -> None:
        self.pids = sorted({server.pid, *(int(p) for p in pids)})
        self.by_process: Counter[str] = Counter()
        keep = 0 if connections == "fresh" else concurrency
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=keep)
        self.client = httpx.AsyncClient(
            base_url=server.url,
            headers=server.headers,
            timeout=60.0,
            limits=limits,
            event_hooks={"response": [self._count]},
        )
        self._pid = str(server.pid)

    async def _count(self, response: httpx.Response) -> None:
        self.by_process[response.headers.get(WORKER, self._pid)] += 1

    def taken(self) -> dict[str, int]:
        """Answers per process since the last call, most first; the count starts again."""
        found = dict(self.by_process.most_common())
        self.by_process.clear()
        return found


@asynccontextmanager
async def serving(
    settings: Settings, key: str, workers: int, concurrency: int, connections: str
) -> AsyncIterator[CountingClient]:
    """``kenning serve --workers N`` with ``settings`` until the block ends, every process
    ready; a counting client with ``key``."""
    async with running_server(
        settings, key, command=serve_command(workers), connections=concurrency
    ) as server:
        pids = await _all_ready(server, workers)
        counting = CountingClient(server, pids, concurrency, connections)
        try:
            yield counting
        finally:
            await counting.client.aclose()


async def measure(
    counting: CountingClient,
    pool: asyncpg.Pool,
    work: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    concurrency: int,
) -> dict[str, Any]:
    """Per operation: a warm-up pass, then requests/s with ``concurrency`` in flight; CPU
    ms per request of the server's processes, PostgreSQL, this client and anything else on
    the machine; the cores each kept busy; PostgreSQL's share of the CPU this benchmark's
    parts used; the answers per process."""
    reads = GraphqlReads(counting.client)
    found: dict[str, Any] = {}
    for op, (warm, items) in work.items():
        call = getattr(reads, op)
        await saturate(call, warm, concurrency, pool)
        counting.taken()
        before = cpu_seconds(counting.pids)
        run = asdict(await saturate(call, items, concurrency, pool))
        server = (cpu_seconds(counting.pids) - before) * 1000 / max(len(items), 1)
        postgres, client = run["postgres_cpu_ms"], run["client_cpu_ms"]
        ours = server + postgres + client
        run["server_cpu_ms"] = server
        # Another job on the machine shows here, not in the parts above.
        run["other_cpu_ms"] = max(run["machine_cpu_ms"] - ours, 0.0)
        run["postgres_cpu_share"] = postgres / ours if ours else 0.0
        run["cores_busy"] = {
            part: round(ms * run["qps"] / 1000, 2)
            for part, ms in (("server", server), ("postgres", postgres), ("client", client))
        } | {"other": round(run["other_cpu_ms"] * run["qps"] / 1000, 2)}
        run["requests_by_process"] = counting.taken()
        found[op] = run
    return found
