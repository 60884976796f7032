"""userContext benchmark: the user-context prefetch through GraphQL over HTTP against the raw
SQL it runs, on 10,000 stored user-knowledge items, in one run. Goal: GraphQL p50 <= 30 ms.

Run from the repository root::

    .venv/bin/python -m bench.user_context [--items 10000] [--clients 50] [--queries 300]

The data lives in its own database (``kenning_bench_user_context``), dropped and built again
with direct SQL on every run (a few seconds): ``--items`` items of the six categories spread
evenly over ``--clients`` clients, each client's share a third client-wide, a third in project
``p0`` and a third in ``p1`` (every item one chunk, as a short fact is). The reader is an
agent key of ``client-00`` / ``p0``: it sees its client-wide and ``p0`` items. A server
process runs ``create_app`` under uvicorn on a free loopback port with the hash embedder
(``bench._read_server``).

Two paths, interleaved one query at a time: ``sql`` (the server's statement through asyncpg,
least Python) and ``graphql`` (HTTP to the server, the whole result selected). Both must
return the same items. Results go to stdout and ``bench/results/user_context.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import uvloop

from bench._own_database import own_settings, recreate_and_migrate
from bench._processes import running_server
from bench._read_server import SERVE
from bench._timing import percentile
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.user_knowledge import USER_KNOWLEDGE_KINDS
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from kenning.storage.db.visibility import reader_params
from kenning.storage.memory.user_knowledge import user_context_sql

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "user_context.json"
DATABASE = "kenning_bench_user_context"
REDIS_DB = "13"
READER = Scope("client-00", "p0")
PER_CATEGORY = 100
WARM_UP = 30
GOAL_P50_MS = 30.0
QUERY = """query U($limit: Int!) { userContext(limitPerCategory: $limit) {
  categories { category items { subject content updatedAt } } markdown } }"""


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--queries", type=int, default=300, help="sequential, per path")
    parser.add_argument("--output", type=Path, default=RESULTS)
    return parser.parse_args(argv)


def _rows(items: int, clients: int) -> list[tuple[str, str, str, str, str, str]]:
    """(id, source_urn, kind, client, project, subject) of every item."""
    rows = []
    for n in range(items):
        client, share = f"client-{n % clients:02d}", n // clients
        project = ("", "p0", "p1")[share % 3]
        kind = USER_KNOWLEDGE_KINDS[share // 3 % len(USER_KNOWLEDGE_KINDS)]
        urn = f"user-knowledge:{kind}:{n:032x}"
        rows.append((f"uk-{n:08d}", urn, kind, client, project, f"subject {n}"))
    return rows


async def load(pool: asyncpg.Pool, settings: Settings, items: int, clients: int) -> None:
    """The items as chunks (one each), written with one statement."""
    ids, urns, kinds, client_ids, projects, subjects = map(
        list, zip(*_rows(items, clients), strict=True)
    )
    await pool.execute(
        """INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id,
                               content, embedding, content_hash, info_type, metadata)
           SELECT i, u, 0, k, c, p, '', 'What is known about ' || s || ': a short fact.',
                  array_fill(0.1::real, ARRAY[$7::int])::vector, md5(i), 'user_profile',
                  jsonb_build_object('subject', s)
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
                AS t(i, u, k, c, p, s)""",
        ids, urns, kinds, client_ids, projects, subjects, settings.embedding_dim,
    )  # fmt: skip
    await pool.execute("ANALYZE chunks")


async def _timed(call: Callable[[], Awaitable[int]]) -> tuple[float, int]:
    started = time.perf_counter()
    found = await call()
    return (time.perf_counter() - started) * 1000, found


def _summary(values: list[float]) -> dict[str, float]:
    return {f"p{q}_ms": round(percentile(values, q), 3) for q in (50, 95, 99)}


async def measure(settings: Settings, queries: int) -> dict[str, Any]:
    """Latency of both paths, interleaved, after a warm-up; the items each returned."""
    pool = await create_pool(settings)
    try:
        key, _ = await PgApiKeys(pool).create(READER, Role.AGENT, "bench-user-context")
        statement = user_context_sql()
        params = (*reader_params(READER), list(USER_KNOWLEDGE_KINDS), PER_CATEGORY)

        async def sql() -> int:
            return len(await pool.fetch(statement, *params))

        async with running_server(settings, key, command=SERVE, connections=1) as server:
            graphql = _graphql(server.client)
            paths = {"sql": sql, "graphql": graphql}
            for _ in range(WARM_UP):
                for call in paths.values():
                    await call()
            times: dict[str, list[float]] = {name: [] for name in paths}
            found: dict[str, set[int]] = {name: set() for name in paths}
            for _ in range(queries):
                for name, call in paths.items():
                    elapsed, count = await _timed(call)
                    times[name].append(elapsed)
                    found[name].add(count)
    finally:
        await pool.close()
    return {
        "latency": {name: _summary(values) for name, values in times.items()},
        "items_returned": {name: sorted(counts) for name, counts in found.items()},
    }


def _graphql(client: httpx.AsyncClient) -> Callable[[], Awaitable[int]]:
    async def call() -> int:
        response = await client.post(
            "/graphql", json={"query": QUERY, "variables": {"limit": PER_CATEGORY}}
        )
        response.raise_for_status()
        body = response.json()
        if body.get("errors"):
            raise RuntimeError(body["errors"])
        groups = body["data"]["userContext"]["categories"]
        return sum(len(group["items"]) for group in groups)

    return call


def render(report: dict[str, Any]) -> str:
    """The figures a reader checks: p50/p95 of each path, their ratio, and the goal."""
    latency = report["latency"]
    lines = [f"userContext on {report['items']:,} stored items, reader {report['reader']}:"]
    for name, values in latency.items():
        lines.append(f"  {name:8} p50 {values['p50_ms']:7.2f} ms  p95 {values['p95_ms']:7.2f} ms")
    lines.append(
        f"  graphql/sql  p50 x{report['ratio_p50']:.2f}  p95 x{report['ratio_p95']:.2f}; "
        f"items returned {report['items_returned']}; goal p50 <= {GOAL_P50_MS:.0f} ms: "
        f"{'met' if latency['graphql']['p50_ms'] <= GOAL_P50_MS else 'MISSED'}"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    settings = own_settings(DATABASE, REDIS_DB, queue_workers=0)
    print("building the data ...", file=sys.stderr)
    recreate_and_migrate(settings, DATABASE)

    async def run() -> dict[str, Any]:
        pool = await create_pool(settings)
        try:
            await load(pool, settings, args.items, args.clients)
        finally:
            await pool.close()
        return await measure(settings, args.queries)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        measured = runner.run(run())
    latency = measured["latency"]
    report = {
        "items": args.items,
        "clients": args.clients,
        "queries": args.queries,
        "reader": f"{READER.client_id}/{READER.project_id}",
        "limit_per_category": PER_CATEGORY,
        "cpus": os.cpu_count(),
        **measured,
        "ratio_p50": latency["graphql"]["p50_ms"] / latency["sql"]["p50_ms"],
        "ratio_p95": latency["graphql"]["p95_ms"] / latency["sql"]["p95_ms"],
    }
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
