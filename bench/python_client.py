"""Python client benchmark: a KEYWORD search through kenning-client, async and sync, against a
raw httpx POST of the same query, on the read benchmark's corpus (``bench.read``'s database,
built the same way when missing).

Run from the repository root::

    .venv/bin/python -m bench.python_client [--queries 300]

Two pairs, one after the other, each query going both ways of a pair in turn (rotating which
goes first): ``client_async`` is ``AsyncKenningClient.search``, ``httpx_async`` posts the very
body that client sends (its operation text, captured once) with an ``httpx.AsyncClient`` and
reads the hits from the JSON; ``client_sync`` and ``httpx_sync`` do the same with the sync
client and ``httpx.Client``. All four must return the same chunk ids. Reported: p50 of each
and each client against its raw POST (goal <= 1.05x). Results go to stdout and
``bench/results/python_client.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx
import uvloop
from kenning_client import (
    SearchMode,
    SearchSearchSearchSuccess,
    client_over,
    connect,
    connect_async,
)

from bench._processes import running_server
from bench._read_corpus import READER, Spec, search_queries
from bench._read_data import PREFIX, bench_settings, ready
from bench._read_measure import interleaved
from bench._read_server import SERVE
from kenning.domain.access.principal import Role
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results" / "python_client.json"
KEY_LABEL = "bench-python-client"
LIMIT = 10
PAIRS = (("client_async", "httpx_async"), ("client_sync", "httpx_sync"))


def _ids(found: object) -> list[str]:
    assert isinstance(found, SearchSearchSearchSuccess), found
    return [hit.chunk.id for hit in found.hits]


def _raw_ids(answer: httpx.Response) -> list[str]:
    return [hit["chunk"]["id"] for hit in answer.json()["data"]["search"]["hits"]]


def sent_body(url: str, key: str) -> dict[str, Any]:
    """The JSON body the sync client posts for a search, captured from one request."""
    bodies: list[dict[str, Any]] = []

    def record(request: httpx.Request) -> None:
        bodies.append(json.loads(request.content))

    http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120)
    with client_over(http) as kenning:
        http.event_hooks["request"].append(record)
        kenning.search("warm", mode=SearchMode.KEYWORD, limit=LIMIT)
    return bodies[0]


Search = Callable[[str], Awaitable[list[str]]]


def paths(body: dict[str, Any], clients: dict[str, Any]) -> dict[str, Search]:
    """The four ways to search, each taking the query text and giving the chunk ids."""

    def variables(text: str) -> dict[str, Any]:
        return {**body, "variables": {**body["variables"], "query": text}}

    async def client_async(text: str) -> list[str]:
        found = await clients["async"].search(text, mode=SearchMode.KEYWORD, limit=LIMIT)
        return _ids(found)

    async def httpx_async(text: str) -> list[str]:
        return _raw_ids(await clients["raw_async"].post("/graphql", json=variables(text)))

    async def client_sync(text: str) -> list[str]:
        return _ids(clients["sync"].search(text, mode=SearchMode.KEYWORD, limit=LIMIT))

    async def httpx_sync(text: str) -> list[str]:
        return _raw_ids(clients["raw_sync"].post("/graphql", json=variables(text)))

    return {"client_async": client_async, "httpx_async": httpx_async,
            "client_sync": client_sync, "httpx_sync": httpx_sync}  # fmt: skip


async def measure(settings: Settings, spec: Spec, queries: int) -> dict[str, Any]:
    """p50 and CPU per path, and how many queries all four answered alike."""
    pool = await create_pool(settings)
    try:
        await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)
        key, _ = await PgApiKeys(pool).create(READER, Role.AGENT, KEY_LABEL)
        texts = search_queries(spec, queries + 20, salt=11)
        async with running_server(settings, key, command=SERVE) as server:
            body = await asyncio.to_thread(sent_body, server.url, key)
            headers = {"Authorization": f"Bearer {key}"}
            with (
                connect(server.url, key) as sync,
                httpx.Client(base_url=server.url, headers=headers, timeout=120) as raw_sync,
            ):
                async with (
                    connect_async(server.url, key) as async_client,
                    httpx.AsyncClient(base_url=server.url, headers=headers, timeout=120) as raw,
                ):
                    clients = {"async": async_client, "raw_async": raw, "sync": sync,
                               "raw_sync": raw_sync}  # fmt: skip
                    ways = paths(body, clients)
                    runs = []
                    for pair in PAIRS:  # each client against its own raw POST, alternating
                        calls = {name: ways[name] for name in pair}
                        await interleaved(calls, texts[:20], pool)  # warm
                        runs.append(await interleaved(calls, texts[20:], pool, server.pid))
    finally:
        await pool.close()
    latency = {name: asdict(value) for run in runs for name, value in run.latency.items()}
    cpu = {name: asdict(value) for run in runs for name, value in run.cpu.items()}
    answers = [answer for run in runs for answer in run.answers.values()]
    agree = sum(all(a == row[0] for a in row) for row in zip(*answers, strict=True))
    return {
        "latency": latency,
        "cpu": cpu,
        "agree": agree,
        "queries": queries,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=300, help="per path")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    spec = Spec()
    settings = bench_settings(PREFIX, spec.dim)
    built = ready(settings, spec)
    if built is not None:
        print(f"built: {built}", file=sys.stderr)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        report = runner.run(measure(settings, spec, args.queries))
    p50 = {path: report["latency"][path]["p50_ms"] for path in report["latency"]}
    for client, raw in PAIRS:
        print(
            f"search p50: {client} {p50[client]:.2f} ms, {raw} {p50[raw]:.2f} ms "
            f"(x{p50[client] / p50[raw]:.3f}, goal <= 1.05)"
        )
    print(f"agree {report['agree']}/{args.queries}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
