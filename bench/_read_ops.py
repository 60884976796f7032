"""``bench.read``'s passes against a running server: the three paths of each read
(``sql``, ``domain``, ``graphql``) one at a time and with ``--concurrency`` in flight, the
2-hop traversal also as AGE Cypher, after any vacuum of the database ended; and what ran
beside them (see ``bench.read``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import asyncpg

from bench._processes import running_server
from bench._read_corpus import READER, Spec, node_keys, search_queries, visible_start_keys
from bench._read_cypher import CypherReads
from bench._read_ingest import maintenance_runs, settle, vacuums_running
from bench._read_measure import Interleaved, interleaved, loaded, saturate
from bench._read_paths import DomainReads, GraphqlReads, SqlReads
from bench._read_profile import profiled
from bench._read_resident import warm_resident
from bench._read_server import SERVE
from kenning.domain.access.principal import Role
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.database_url import asyncpg_dsn, database_name
from kenning.storage.db.pool import create_pool

KEY_LABEL = "bench-read"
WARM_UP = 40


def _items(pool: Sequence[str], start: int, count: int) -> list[str]:
    """``count`` items from ``start``, wrapping around a pool too small for distinct ones."""
    return [pool[(start + i) % len(pool)] for i in range(count)]


def _agreement(run: Interleaved) -> dict[str, int]:
    """For each path, on how many items its answer equals the ``sql`` path's."""
    reference = run.answers["sql"]
    return {
        name: sum(a == b for a, b in zip(answers, reference, strict=True))
        for name, answers in run.answers.items()
    }


async def _api_key(pool: asyncpg.Pool) -> str:
    await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)
    key, _ = await PgApiKeys(pool).create(READER, Role.UI, KEY_LABEL)
    return key


async def _measure_op(
    name: str,
    paths: dict[str, Any],
    items: tuple[list[str], list[str]],
    args: argparse.Namespace,
    pool: asyncpg.Pool,
    server_pid: int,
) -> dict[str, Any]:
    """Sequential latency (paths interleaved), then throughput (rounds, order rotating)."""
    calls = {path: getattr(reads, name) for path, reads in paths.items()}
    started = time.perf_counter()
    run = await interleaved(calls, items[0], pool, server_pid)
    pids = {"graphql": server_pid, "http_floor": server_pid}
    throughput = await loaded(calls, items[1], args.concurrency, pool, pids)
    result: dict[str, Any] = {
        "latency": {path: asdict(value) for path, value in run.latency.items()},
        "sequential_cpu": {path: asdict(value) for path, value in run.cpu.items()},
        "throughput": {path: asdict(value) for path, value in throughput.items()},
        "agree_with_sql": _agreement(run) if "sql" in calls else {},
    }
    if args.profile and "graphql" in calls:

        async def again() -> float:
            found = await saturate(calls["graphql"], items[1], args.concurrency, pool, server_pid)
            return found.server_cpu_ms

        result["server_profile_ms"] = await profiled(server_pid, again())
    print(f"  {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return result


async def measure(
    settings: Settings, spec: Spec, args: argparse.Namespace
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Everything measured against a running server, the report's ``ops`` part, after any
    vacuum of the database ended; and the background: the wait for it, and the autovacuum
    and autoanalyze runs that finished during the passes."""
    pool = await create_pool(settings)
    try:
        database = [database_name(settings.database_url)]
        waited = await settle(pool, database)
        runs, running = await maintenance_runs(pool), await vacuums_running(pool, database)
        key = await _api_key(pool)
        starts = visible_start_keys(spec, node_keys(spec))
        sizes = (WARM_UP, args.queries, args.load_queries)
        queries = [search_queries(spec, n, salt=salt) for salt, n in enumerate(sizes)]
        offsets = (0, WARM_UP, WARM_UP + args.queries)
        keys = [_items(starts, offset, n) for offset, n in zip(offsets, sizes, strict=True)]
        async with running_server(
            settings, key, command=SERVE, connections=args.concurrency
        ) as server:
            paths: dict[str, Any] = {
                "sql": SqlReads(pool, settings, READER),
                "domain": DomainReads(pool, settings, READER),
                "graphql": GraphqlReads(server.client),
            }
            warm = (("search", queries[0]), ("keyword_search", queries[0]), ("neighbors", keys[0]))
            for reads in paths.values():  # warm pools, plans and caches on both sides
                for op, items in warm:
                    await saturate(getattr(reads, op), items, args.concurrency, pool)
            resident = await warm_resident(paths["sql"].index, paths["domain"].index, server.client)
            pid = server.pid
            texts = (queries[1], queries[2])
            search = await _measure_op("search", paths, texts, args, pool, pid)
            keyword = await _measure_op("keyword_search", paths, texts, args, pool, pid)
            near = await _measure_op("neighbors", paths, (keys[1], keys[2]), args, pool, pid)
            near["latency"]["cypher"], near["cypher"] = await _cypher(
                settings, pool, paths["sql"], keys[1], args.cypher_queries
            )
            floor = {"http_floor": paths["graphql"]}
            http = await _measure_op("floor", floor, texts, args, pool, pid)
        background = {
            "resident": resident,
            "settle_wait_s": waited,
            "vacuums_running_at_start": running,
            "autovacuum_runs": await maintenance_runs(pool) - runs,
            "vacuums_running_at_end": await vacuums_running(pool, database),
        }
    finally:
        await pool.close()
    ops = {"search": search, "keyword_search": keyword, "neighbors": near, "http_floor": http}
    return ops, background


async def _cypher(
    settings: Settings, pool: asyncpg.Pool, sql: SqlReads, keys: list[str], count: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The traversal as AGE Cypher against SQL, interleaved on the first keys: the Cypher
    latency and how it compares (see ``bench._read_cypher`` for what its scoping lacks)."""
    started = time.perf_counter()
    dsn = asyncpg_dsn(settings.database_url)
    cypher = await CypherReads(dsn, settings.graph_name, READER).open()

    async def sql_nodes(key: str) -> frozenset[str]:
        return (await sql.neighbors(key)).nodes

    try:
        calls = {"sql": sql_nodes, "cypher": cypher.neighbors}
        items = keys[:count]
        run = await interleaved(calls, items, pool)
    finally:
        await cypher.close()
    answers = run.answers
    same = sum(a == b for a, b in zip(answers["cypher"], answers["sql"], strict=True))
    sizes = [len(a) for a in answers["cypher"]]  # type: ignore[arg-type]
    details = {
        "count": len(items),
        "sql_same_run": asdict(run.latency["sql"]),
        "node_sets_equal_to_sql": same,
        "mean_nodes": sum(sizes) / max(len(sizes), 1),
        "differs": "middle vertex unchecked; no limit/truncation (every node within 2 hops)",
    }
    print(f"  neighbors as cypher: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return asdict(run.latency["cypher"]), details
