"""findNodes benchmark: the query through GraphQL over HTTP against the same raw SQL, on the
read benchmark's graph of 100,000 vertices (``bench.read``'s database, built the same way).

Run from the repository root::

    .venv/bin/python -m bench.find_nodes [--rebuild] [--queries 300]

What a person types, four ways in turn, from keys the reader (``client-00``, project ``p0``)
can see: the id with spaces for dashes (``billing 1231``), a misspelling (a letter dropped:
``biling-1231``), the exact key (``service:billing-1231``), and one bare word
(``alice``, matched by every alice of the client: the broad case). ``sql`` runs
``find_nodes_sql`` in a transaction with the threshold set, as ``PgGraphReader`` does;
``graphql`` posts ``findNodes`` (which also reads the found nodes) to a server process. Both
must return the same keys. The candidate scan's plan is recorded (EXPLAIN ANALYZE) to show
the trigram indexes at work. Results go to stdout and ``bench/results/find_nodes.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import asyncpg
import uvloop

from bench._processes import running_server
from bench._read_corpus import READER, Spec, node_keys, visible_start_keys
from bench._read_data import PREFIX, bench_settings, ready
from bench._read_measure import interleaved
from bench._read_server import SERVE
from kenning.domain.access.principal import Role
from kenning.domain.graph.find import WORD_SIMILARITY_THRESHOLD, find_query
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from kenning.storage.db.visibility import reader_params
from kenning.storage.graph.find_sql import THRESHOLD_SETTING, find_nodes_sql

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results" / "find_nodes.json"
KEY_LABEL = "bench-find-nodes"
LIMIT = 20
FORMS = ("spaced", "typo", "exact_key", "broad_word")
FIND = """query($q: String!, $limit: Int!) { findNodes(query: $q, limit: $limit) {
  __typename ... on FoundNodes { matches { key label score } } } }"""


def person_query(key: str, form: str) -> str:
    """What a person might type for ``key`` (see the module docstring)."""
    ident = key.partition(":")[2].rsplit("/", 1)[-1]
    word = ident.split("-")[0].removesuffix(".py")
    if form == "spaced":
        return ident.replace("-", " ")
    if form == "typo" and len(word) > 3:
        return ident.replace(word, word[:2] + word[3:], 1)
    if form == "broad_word":
        return word
    return key


class SqlFind:
    """The statement the server runs, with the least Python around it."""

    def __init__(self, pool: asyncpg.Pool, settings: Settings) -> None:
        self._pool, self._sql = pool, find_nodes_sql(settings.graph_name, False)

    def args(self, text: str) -> tuple[object, ...]:
        query = find_query(text, None, LIMIT)
        found = (query.text, query.exact_key, query.exact_id, LIMIT, None)
        return (*reader_params(READER), *found, [READER.client_id, ""])

    async def __call__(self, text: str) -> list[str]:
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "SELECT set_config($1, $2, true)", THRESHOLD_SETTING, str(WORD_SIMILARITY_THRESHOLD)
            )
            rows = await conn.fetch(self._sql, *self.args(text))
        return [row["key"] for row in rows]

    async def plan(self, text: str) -> dict[str, Any]:
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "SELECT set_config($1, $2, true)", THRESHOLD_SETTING, str(WORD_SIMILARITY_THRESHOLD)
            )
            raw = await conn.fetchval(
                f"EXPLAIN (ANALYZE, FORMAT JSON) {self._sql}", *self.args(text)
            )
        found: dict[str, Any] = json.loads(raw)[0]
        return found


def _indexes(plan: dict[str, Any]) -> list[str]:
    names = [plan["Index Name"]] if "Index Name" in plan else []
    for child in plan.get("Plans", []):
        names += _indexes(child)
    return names


async def measure(settings: Settings, spec: Spec, queries: int) -> dict[str, Any]:
    """Latency per form and path, agreement, and one plan per form."""
    pool = await create_pool(settings)
    try:
        await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)
        key, _ = await PgApiKeys(pool).create(READER, Role.UI, KEY_LABEL)
        starts = visible_start_keys(spec, node_keys(spec))
        sql = SqlFind(pool, settings)
        async with running_server(settings, key, command=SERVE) as server:

            async def graphql(text: str) -> list[str]:
                response = await server.client.post(
                    "/graphql", json={"query": FIND, "variables": {"q": text, "limit": LIMIT}}
                )
                found = response.json()["data"]["findNodes"]
                return [m["key"] for m in found["matches"]]

            report: dict[str, Any] = {}
            for form in FORMS:
                texts = [person_query(k, form) for k in starts[:queries]]
                await interleaved({"sql": sql, "graphql": graphql}, texts[:20], pool)  # warm
                run = await interleaved({"sql": sql, "graphql": graphql}, texts, pool, server.pid)
                plan = await sql.plan(texts[0])
                report[form] = {
                    "example": texts[0],
                    "latency": {path: asdict(value) for path, value in run.latency.items()},
                    "agree": sum(
                        a == b
                        for a, b in zip(run.answers["sql"], run.answers["graphql"], strict=True)
                    ),
                    "queries": len(texts),
                    "found_expected": sum(
                        isinstance(found, list) and k in found
                        for k, found in zip(starts, run.answers["sql"], strict=False)
                    ),
                    "plan_ms": plan["Execution Time"],
                    "plan_indexes": sorted(set(_indexes(plan["Plan"]))),
                }
                print(f"  {form}: {json.dumps(report[form]['latency'])}", file=sys.stderr)
    finally:
        await pool.close()
    return report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="build the data again")
    parser.add_argument("--queries", type=int, default=300, help="per form and path")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    spec = Spec()
    settings = bench_settings(PREFIX, spec.dim)
    built = ready(settings, spec, rebuild=args.rebuild)
    if built is not None:
        print(f"built: {built}", file=sys.stderr)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        forms = runner.run(measure(settings, spec, args.queries))
    report = {"spec": asdict(spec), "reader": asdict(READER), "limit": LIMIT, "forms": forms}
    for form, found in forms.items():
        p50 = {path: found["latency"][path]["p50_ms"] for path in ("sql", "graphql")}
        print(
            f"{form:>10}: sql p50 {p50['sql']:.2f} ms, graphql p50 {p50['graphql']:.2f} ms, "
            f"agree {found['agree']}/{found['queries']}, found {found['found_expected']}, "
            f"indexes {found['plan_indexes']}"
        )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
