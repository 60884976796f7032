"""agentContext benchmark: the three-layer retrieve through GraphQL over HTTP against the same
use case called directly, and against agentContext as it was before the three-layer retrieve
(one hop of graph, no linked pieces), on the read benchmark's corpus, in one run. Goals:
GraphQL p50 <= 60 ms, and at depth 2 (the default) p50 <= 1.3x the earlier one's.

Run from the repository root::

    .venv/bin/python -m bench.agent_context [--database kenning_bench_read] [--queries 200]
        [--baseline-ref b3b0bec | --no-baseline]

The corpus is ``bench.read``'s (100,000 chunks, 100,000 vertices, 500,000 edges), built by its
builders when the database is missing or stale and reused otherwise. For the reader
(``client-00`` / ``p0`` / ``g0``, an agent key) the run adds every other layer: hard rules,
user knowledge (one chunk per item), session entries and procedures (some triggered by the
measured queries), and removes its chunks again at the end so ``bench.read`` still reuses the
data. Each request names a user entity and two more entities the reader sees.

Three paths, interleaved one query at a time after a warm-up: ``direct`` (alias lookup, the
nodes read and ``agent_context`` in process over the server's storage adapters), ``graphql``
(HTTP to a server process on loopback with the hash embedder) and ``baseline`` (the same
request to a server running the code of ``--baseline-ref``, extracted with ``git archive``
into a temporary directory: the commit before the three-layer retrieve by default). The
first two must return the same text. Results: stdout, ``bench/results/agent_context.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import uvloop

from bench._agent_context_layers import KEY_LABEL, forget, remember
from bench._processes import running_server
from bench._read_corpus import READER, Spec, node_keys, search_queries, visible_start_keys
from bench._read_data import PREFIX, bench_settings, ready
from bench._read_server import SERVE
from bench._timing import percentile
from kenning.domain.access.principal import Role
from kenning.domain.memory import agent_context as memory_context
from kenning.domain.memory.context_request import context_for_keys
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.access.project_groups import PgProjectGroups
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.graph.chunk_reads import PgChunkReader
from kenning.storage.graph.reader import PgGraphReader
from kenning.storage.ingestion.alias_registry import PgAliasRegistry
from kenning.storage.memory.procedures import PgProcedureStore
from kenning.storage.memory.rules import PgRuleStore
from kenning.storage.memory.session_entries import PgSessionStore
from kenning.storage.memory.user_knowledge import PgUserKnowledge
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "agent_context.json"
WARM_UP = 30
LIMIT = 10
GOAL_P50_MS = 60.0
GOAL_BASELINE_RATIO = 1.3
# agentContext before the three-layer retrieve (one hop, no linked pieces, bullet lines).
BASELINE_REF = "b3b0bec"
DEPTH = 2  # agentContext's default: the request leaves it out, so the baseline reads it too
QUERY = """query A($q: String!, $user: String, $entities: [String!], $limit: Int!) {
  agentContext(query: $q, userKey: $user, entityKeys: $entities, limit: $limit) {
    __typename ... on AgentContext { text sections { infoType omitted lines { text } } }
    ... on Error { code message } } }"""

Call = Callable[[str, str, list[str]], Awaitable[str]]


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default=PREFIX, help=f"must start with {PREFIX}")
    parser.add_argument("--queries", type=int, default=200, help="sequential, per path")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--baseline-ref", default=BASELINE_REF, help="git ref of the baseline")
    parser.add_argument("--no-baseline", action="store_true", help="measure this code only")
    return parser.parse_args(argv)


@contextmanager
def baseline_tree(ref: str | None) -> Iterator[Path | None]:
    """The code of ``ref`` in a temporary directory, gone afterwards; None when no baseline
    is asked for or the checkout has no such commit (a shallow clone: said on stderr)."""
    if ref is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="kenning-baseline-") as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True)
        if archive.returncode != 0:
            print(f"no baseline: git archive {ref}: {archive.stderr.decode()}", file=sys.stderr)
            yield None
            return
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        yield Path(tmp)


def _prepare(settings: Settings, spec: Spec) -> str:
    """Build the read corpus unless it can be reused; what happened."""
    if ready(settings, spec) is None:
        return "reused"
    return "built"


def direct(pool: asyncpg.Pool, settings: Settings) -> Call:
    """The use case in process over the adapters the server builds (no GraphQL, no HTTP)."""
    graph, aliases = PgGraphReader(pool, settings.graph_name), PgAliasRegistry(pool)
    ports = memory_context.MemoryPorts(
        embedder=create_embedder(settings),
        index=PgChunkIndex(pool, VectorScan.from_settings(settings)),
        graph=graph,
        chunks=PgChunkReader(pool),
        knowledge=PgUserKnowledge(pool),
        session=PgSessionStore(pool),
        procedures=PgProcedureStore(pool),
        rules=PgRuleStore(pool),
        groups=PgProjectGroups(pool),
    )

    async def call(query: str, user: str, entities: list[str]) -> str:
        result = await context_for_keys(
            query,
            user=(user, "userKey"),
            entity_keys=entities,
            limit=LIMIT,
            reader=READER,
            now=datetime.now(UTC),
            ports=ports,
            aliases=aliases,
        )
        return result.text

    return call


def graphql(client: httpx.AsyncClient) -> Call:
    """The same request to the server process."""

    async def call(query: str, user: str, entities: list[str]) -> str:
        variables = {"q": query, "user": user, "entities": entities, "limit": LIMIT}
        response = await client.post("/graphql", json={"query": QUERY, "variables": variables})
        response.raise_for_status()
        body = response.json()
        found = body.get("data", {}) and body["data"]["agentContext"]
        if body.get("errors") or found.get("__typename") != "AgentContext":
            raise RuntimeError(body)
        text: str = found["text"]
        return text

    return call


def _requests(spec: Spec, count: int) -> list[tuple[str, str, list[str]]]:
    """``count`` requests: a query, a user entity and two more entities the reader sees."""
    texts = search_queries(spec, count, salt=3)
    starts = visible_start_keys(spec, node_keys(spec))
    return [
        (q, starts[(3 * i) % len(starts)], [starts[(3 * i + k) % len(starts)] for k in (1, 2)])
        for i, q in enumerate(texts)
    ]


async def _servers(
    stack: AsyncExitStack, settings: Settings, key: str, baseline: Path | None
) -> dict[str, Call]:
    """The server of this code and, when given, the baseline's: their GraphQL calls."""
    server = await stack.enter_async_context(
        running_server(settings, key, command=SERVE, connections=1)
    )
    calls = {"graphql": graphql(server.client)}
    if baseline is not None:
        before = await stack.enter_async_context(
            running_server(settings, key, command=SERVE, connections=1, cwd=baseline)
        )
        calls["baseline"] = graphql(before.client)
    return calls


async def _timed(
    paths: dict[str, Call], requests: Sequence[tuple[str, str, list[str]]]
) -> tuple[dict[str, list[float]], dict[str, list[str]]]:
    """Every path on every request, interleaved one request at a time: ms and texts."""
    times: dict[str, list[float]] = {name: [] for name in paths}
    answers: dict[str, list[str]] = {name: [] for name in paths}
    for request in requests:
        for name, call in paths.items():
            started = time.perf_counter()
            answers[name].append(await call(*request))
            times[name].append((time.perf_counter() - started) * 1000)
    return times, answers


async def measure(
    settings: Settings, spec: Spec, queries: int, baseline: Path | None = None
) -> dict[str, Any]:
    """Every path interleaved after a warm-up; latencies, agreement and what the texts held."""
    requests = _requests(spec, WARM_UP + queries)
    pool = await create_pool(settings)
    try:
        await forget(pool)
        await remember(pool, settings, [q for q, _, _ in requests[WARM_UP : WARM_UP + 5]])
        key, _ = await PgApiKeys(pool).create(READER, Role.AGENT, KEY_LABEL)
        async with AsyncExitStack() as stack:
            paths = {"direct": direct(pool, settings)}
            paths |= await _servers(stack, settings, key, baseline)
            await _timed(paths, requests[:WARM_UP])
            times, answers = await _timed(paths, requests[WARM_UP:])
    finally:
        await forget(pool)
        await pool.close()
    texts = answers["graphql"]
    return {
        "latency": {name: _summary(values) for name, values in times.items()},
        "same_text": sum(map(str.__eq__, answers["direct"], texts)),
        "mean_chars": round(sum(map(len, texts)) / len(texts)),
        "sections_seen": sorted(
            {line[3:] for text in texts for line in text.splitlines() if line.startswith("## ")}
        ),
    }


def _summary(values: list[float]) -> dict[str, float]:
    return {f"p{q}_ms": round(percentile(values, q), 3) for q in (50, 95, 99)}


def render(report: dict[str, Any]) -> str:
    """The figures a reader checks: p50/p95 of each path, their ratio, and the goal."""
    latency = report["latency"]
    lines = [
        f"agentContext on the read corpus ({report['corpus']}), reader {report['reader']}, "
        f"{report['queries']} queries, depth {report['depth']}:"
    ]
    for name, values in latency.items():
        lines.append(f"  {name:8} p50 {values['p50_ms']:7.2f} ms  p95 {values['p95_ms']:7.2f} ms")
    met = latency["graphql"]["p50_ms"] <= GOAL_P50_MS
    lines.append(
        f"  graphql/direct p50 x{report['ratio_p50']:.2f}  p95 x{report['ratio_p95']:.2f}; "
        f"same text {report['same_text']}/{report['queries']}; mean {report['mean_chars']} "
        f"chars; goal p50 <= {GOAL_P50_MS:.0f} ms: {'met' if met else 'MISSED'}"
    )
    if "baseline" in latency:
        ratio = report["ratio_baseline_p50"]
        met = ratio <= GOAL_BASELINE_RATIO
        lines.append(
            f"  graphql/baseline ({report['baseline_ref']}) p50 x{ratio:.2f}; goal <= "
            f"{GOAL_BASELINE_RATIO}x: {'met' if met else 'MISSED'}"
        )
    lines.append(f"  sections seen: {', '.join(report['sections_seen'])}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    spec = Spec()
    settings = bench_settings(args.database, spec.dim)
    corpus = _prepare(settings, spec)
    print("measuring ...", file=sys.stderr)
    ref = None if args.no_baseline else args.baseline_ref
    with baseline_tree(ref) as baseline, asyncio.Runner(loop_factory=uvloop.new_event_loop) as run:
        measured = run.run(measure(settings, spec, args.queries, baseline))
    latency = measured["latency"]
    report = {
        "corpus": f"{spec.chunks:,} chunks, {spec.vertices:,} vertices, {spec.edges:,} edges, "
        f"{corpus}",
        "reader": f"{READER.client_id}/{READER.project_id}/{READER.group_id}",
        "queries": args.queries,
        "limit": LIMIT,
        "depth": DEPTH,
        "baseline_ref": ref if "baseline" in latency else None,
        "cpus": os.cpu_count(),
        **measured,
        "ratio_p50": latency["graphql"]["p50_ms"] / latency["direct"]["p50_ms"],
        "ratio_p95": latency["graphql"]["p95_ms"] / latency["direct"]["p95_ms"],
    }
    if "baseline" in latency:
        report["ratio_baseline_p50"] = latency["graphql"]["p50_ms"] / latency["baseline"]["p50_ms"]
        report["goal_baseline_ratio"] = GOAL_BASELINE_RATIO
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
