"""Fan-out section of the queue benchmark: many ``queueStatus`` subscribers over websockets,
each change's delay from its commit to its arrival at every subscriber."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg
import websockets

from bench._processes import running_server
from bench._queue_harness import REQUEST, all_done, one_worker_in_server, truncate, until
from bench._timing import percentile, process_cpu
from kenning.settings import Settings

STATUS_FEED = "subscription { queueStatus(first: 0) { changes { jobId status version at } } }"


@dataclass
class Subscriber:
    arrivals: list[tuple[float, str, str, float]] = field(default_factory=list)
    messages: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)


async def _subscribe(
    url: str, headers: dict[str, str], sub: Subscriber, stop: asyncio.Event
) -> None:
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"], max_size=2**24) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": headers}))
        await ws.recv()
        await ws.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": STATUS_FEED}})
        )
        for _ in range(1_000_000):
            receive = asyncio.ensure_future(ws.recv())
            halt = asyncio.ensure_future(stop.wait())
            await asyncio.wait({receive, halt}, return_when=asyncio.FIRST_COMPLETED)
            if not receive.done():
                receive.cancel()
                return
            halt.cancel()
            arrived = time.time()
            message = json.loads(receive.result())
            if message["type"] == "ping":
                await ws.send(json.dumps({"type": "pong"}))
                continue
            if message["type"] != "next":
                continue
            sub.ready.set()
            sub.messages += 1
            for change in message["payload"]["data"]["queueStatus"]["changes"]:
                at = _epoch(change["at"])
                sub.arrivals.append((arrived, change["jobId"], change["status"], at))


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


async def fan_out(
    settings: Settings, pool: asyncpg.Pool, key: str, subscribers: int, jobs: int
) -> dict[str, Any]:
    await truncate(pool, settings.graph_name)
    async with running_server(one_worker_in_server(settings), key) as server:
        subs = [Subscriber() for _ in range(subscribers)]
        stop = asyncio.Event()
        opened = time.perf_counter()
        tasks = []
        for n, sub in enumerate(subs):
            tasks.append(asyncio.create_task(_subscribe(server.ws_url, server.headers, sub, stop)))
            if n % 50 == 49:
                await asyncio.sleep(0.05)  # let the server accept in waves
        await until(lambda: _all_ready(subs), within=120, every=0.05)
        connect_s = time.perf_counter() - opened
        server_cpu, client_cpu = process_cpu(server.pid), time.process_time()
        for n in range(jobs):
            variables = {
                "input": {"sourceUrn": f"urn:bench:fan:{n}", "kind": "note", "priority": 1,
                          "content": f"Fan-out note {n} about service:billing."},
                "identity": {"sourceKind": "fan", "contentVersion": "v1"},
            }  # fmt: skip
            await server.client.post("/graphql", json={"query": REQUEST, "variables": variables})
            await asyncio.sleep(0.25)
        await until(lambda: all_done(pool, jobs), within=120, every=0.05)
        transitions = await pool.fetchval("SELECT sum(version + 1) FROM ingestion_jobs")

        async def delivered() -> bool:
            return all(len(s.arrivals) >= transitions for s in subs)

        with contextlib.suppress(TimeoutError):  # reported as missing deliveries
            await until(delivered, within=60, every=0.1)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        cpu = {"server_s": round(process_cpu(server.pid) - server_cpu, 2),
               "client_s": round(time.process_time() - client_cpu, 2)}  # fmt: skip
    delays = [(arrived - at) * 1000 for s in subs for arrived, _, _, at in s.arrivals]
    return {
        "subscribers": subscribers,
        "cpu_during_transitions": cpu,
        "connect_and_first_snapshot_s": round(connect_s, 2),
        "transitions": int(transitions),
        "deliveries": len(delays),
        "messages_per_subscriber": round(sum(s.messages for s in subs) / subscribers, 1),
        "expected_deliveries": int(transitions) * subscribers,
        "p50_ms": round(percentile(delays, 50), 1),
        "p95_ms": round(percentile(delays, 95), 1),
        "p99_ms": round(percentile(delays, 99), 1),
        "max_ms": round(max(delays), 1),
    }


async def _all_ready(subs: list[Subscriber]) -> bool:
    return all(s.ready.is_set() for s in subs)
