"""Fan-out section of the queue benchmark: many ``queueStatus`` subscribers over websockets,
held by several client processes (``_queue_subscribers``), each change's delay from its
commit to its arrival at every subscriber."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from bench._processes import running_server
from bench._queue_harness import REQUEST, all_done, one_worker_in_server, truncate, until
from bench._queue_subscribers import ClientProcesses
from bench._timing import percentile, process_cpu
from kenning.settings import Settings

CLIENT_PROCESSES = 4


async def fan_out(
    settings: Settings,
    pool: asyncpg.Pool,
    key: str,
    subscribers: int,
    jobs: int,
    client_processes: int = CLIENT_PROCESSES,
) -> dict[str, Any]:
    await truncate(pool, settings.graph_name)
    async with running_server(one_worker_in_server(settings), key) as server:
        clients = ClientProcesses(server.ws_url, server.headers, subscribers, client_processes)
        try:
            connect_s = await clients.ready()
            server_cpu = process_cpu(server.pid)
            for n in range(jobs):
                variables = {
                    "input": {"sourceUrn": f"urn:bench:fan:{n}", "kind": "note", "priority": 1,
                              "content": f"Fan-out note {n} about service:billing."},
                    "identity": {"sourceKind": "fan", "contentVersion": "v1"},
                }  # fmt: skip
                await server.client.post(
                    "/graphql", json={"query": REQUEST, "variables": variables}
                )
                await asyncio.sleep(0.25)
            await until(lambda: all_done(pool, jobs), within=120, every=0.05)
            transitions = int(await pool.fetchval("SELECT sum(version + 1) FROM ingestion_jobs"))
            delays, messages, client_cpu = await clients.results(transitions)
            server_cpu = process_cpu(server.pid) - server_cpu
        finally:
            clients.close()
    return {
        "subscribers": subscribers,
        "client_processes": clients.processes,
        "cpu_during_transitions": {
            "server_s": round(server_cpu, 2),
            "clients_s": round(client_cpu, 2),
        },
        "connect_and_first_snapshot_s": round(connect_s, 2),
        "transitions": transitions,
        "deliveries": len(delays),
        "expected_deliveries": transitions * subscribers,
        "messages_per_subscriber": round(messages / subscribers, 1),
        "p50_ms": round(percentile(delays, 50), 1),
        "p95_ms": round(percentile(delays, 95), 1),
        "p99_ms": round(percentile(delays, 99), 1),
        "max_ms": round(max(delays), 1),
    }
