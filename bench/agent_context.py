"""agentContext benchmark: the three-layer retrieve through GraphQL over HTTP against the same
use case called directly, on the read benchmark's corpus, in one run. Goal: GraphQL p50 <= 60 ms.

Run from the repository root::

    .venv/bin/python -m bench.agent_context [--database kenning_bench_read] [--queries 200]

The corpus is ``bench.read``'s (100,000 chunks, 100,000 vertices, 500,000 edges), built by its
builders when the database is missing or stale and reused otherwise. For the reader
(``client-00`` / ``p0`` / ``g0``, an agent key) the run adds every other layer: hard rules,
user knowledge (one chunk per item), session entries and procedures (some triggered by the
measured queries), and removes its chunks again at the end so ``bench.read`` still reuses the
data. Each request names a user entity and two more entities the reader sees.

Two paths, interleaved one query at a time after a warm-up: ``direct`` (alias lookup, the
nodes read and ``agent_context`` in process over the server's storage adapters) and
``graphql`` (HTTP to a server process on loopback with the hash embedder). Both must return
the same text. Results go to stdout and ``bench/results/agent_context.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import uvloop

from bench._processes import running_server
from bench._read_corpus import READER, Spec, node_keys, search_queries, visible_start_keys
from bench._read_data import PREFIX, bench_settings, ready
from bench._read_server import SERVE
from bench._timing import percentile
from kenning.domain.access.principal import Role
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory import agent_context as memory_context
from kenning.domain.memory.context_request import context_for_keys
from kenning.domain.memory.procedures import (
    ProcedureDraft,
    ProcedureSource,
    ProcedureStep,
    embedding_text,
)
from kenning.domain.memory.rules import RuleDraft, RuleType
from kenning.domain.memory.session import SessionDraft, SessionSource, new_entry
from kenning.domain.memory.user_knowledge import USER_KNOWLEDGE_KINDS
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
KEY_LABEL = "bench-agent-context"
WARM_UP = 30
LIMIT = 10
GOAL_P50_MS = 60.0
KNOWLEDGE_ID = "bench-uk-"  # the chunks this run adds, and removes again
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
    return parser.parse_args(argv)


def _prepare(settings: Settings, spec: Spec) -> str:
    """Build the read corpus unless it can be reused; what happened."""
    if ready(settings, spec) is None:
        return "reused"
    return "built"


async def _forget(pool: asyncpg.Pool) -> None:
    """Remove what a run added (the corpus's row counts decide whether it is reused)."""
    await pool.execute("DELETE FROM chunks WHERE id LIKE $1", f"{KNOWLEDGE_ID}%")
    for table in ("session_entries", "procedures", "hard_rules"):
        await pool.execute(f"DELETE FROM {table} WHERE client_id = $1", READER.client_id)
    await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)


async def remember(pool: asyncpg.Pool, settings: Settings, triggers: Sequence[str]) -> None:
    """The reader's other layers: rules, user knowledge, session entries, procedures."""
    client, project = READER.client_id, READER.project_id
    rules = PgRuleStore(pool)
    for n in range(10):
        await rules.store(RuleDraft(client, "" if n % 2 else project, f"rule-{n}",
                                    RuleType.PROCESSING, f"Rule {n}: always do step {n}.", "",
                                    "bench"))  # fmt: skip
    await pool.execute(
        """INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id,
                               content, embedding, content_hash, info_type, metadata)
           SELECT $1 || n, 'user-knowledge:bench:' || n, 0, ($2::text[])[1 + n % 6], $3,
                  CASE WHEN n % 2 = 0 THEN $4 ELSE '' END, '',
                  'What is known about subject ' || n || ': a short fact.',
                  array_fill(0.1::real, ARRAY[$5::int])::vector, md5(n::text), 'user_profile',
                  jsonb_build_object('subject', 'subject ' || n)
           FROM generate_series(0, 59) AS n""",
        KNOWLEDGE_ID, list(USER_KNOWLEDGE_KINDS), client, project, settings.embedding_dim,
    )  # fmt: skip
    sessions = PgSessionStore(pool)
    for n in range(20):
        said = SessionDraft(SessionSource.CHAT, f"Looked at item {n}.", {"n": n})
        entry = new_entry(said, READER, "bench", SecretPolicy.REJECT)
        await sessions.append(entry, timedelta(days=7), 50)
    procedures, embedder = PgProcedureStore(pool), create_embedder(settings)
    for n, trigger in enumerate([*triggers, *(f"recurring task {n}" for n in range(15))]):
        draft = ProcedureDraft(trigger, f"How task {n} is done.",
                               [ProcedureStep("coder", "run_tests", {})], _source(n))  # fmt: skip
        [vector] = await embedder.embed([embedding_text(draft)])
        await procedures.save(client, draft, vector, "bench")


def _source(n: int) -> ProcedureSource:
    return ProcedureSource.USER_DEFINED if n % 3 == 0 else ProcedureSource.LEARNED


def direct(pool: asyncpg.Pool, settings: Settings) -> Call:
    """The use case in process over the adapters the server builds (no GraphQL, no HTTP)."""
    graph, aliases = PgGraphReader(pool, settings.graph_name), PgAliasRegistry(pool)
    ports = memory_context.MemoryPorts(
        embedder=create_embedder(settings),
        index=PgChunkIndex(pool, VectorScan.from_settings(settings)),
        graph=graph, chunks=PgChunkReader(pool), knowledge=PgUserKnowledge(pool),
        session=PgSessionStore(pool), procedures=PgProcedureStore(pool),
        rules=PgRuleStore(pool), groups=PgProjectGroups(pool),
    )  # fmt: skip

    async def call(query: str, user: str, entities: list[str]) -> str:
        result = await context_for_keys(
            query, user=(user, "userKey"), entity_keys=entities, limit=LIMIT, reader=READER,
            now=datetime.now(UTC), ports=ports, aliases=aliases,
        )  # fmt: skip
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


async def measure(settings: Settings, spec: Spec, queries: int) -> dict[str, Any]:
    """Both paths interleaved after a warm-up; latencies, agreement and what the texts held."""
    texts = search_queries(spec, WARM_UP + queries, salt=3)
    starts = visible_start_keys(spec, node_keys(spec))
    requests = [(q, starts[(3 * i) % len(starts)], [starts[(3 * i + 1) % len(starts)],
                 starts[(3 * i + 2) % len(starts)]]) for i, q in enumerate(texts)]  # fmt: skip
    pool = await create_pool(settings)
    try:
        await _forget(pool)
        await remember(pool, settings, texts[WARM_UP : WARM_UP + 5])
        key, _ = await PgApiKeys(pool).create(READER, Role.AGENT, KEY_LABEL)
        async with running_server(settings, key, command=SERVE, connections=1) as server:
            paths = {"direct": direct(pool, settings), "graphql": graphql(server.client)}
            for request in requests[:WARM_UP]:
                for call in paths.values():
                    await call(*request)
            times: dict[str, list[float]] = {name: [] for name in paths}
            answers: dict[str, list[str]] = {name: [] for name in paths}
            for request in requests[WARM_UP:]:
                for name, call in paths.items():
                    started = time.perf_counter()
                    answers[name].append(await call(*request))
                    times[name].append((time.perf_counter() - started) * 1000)
    finally:
        await _forget(pool)
        await pool.close()
    return {
        "latency": {name: _summary(values) for name, values in times.items()},
        "same_text": sum(map(str.__eq__, answers["direct"], answers["graphql"])),
        "mean_chars": round(sum(map(len, answers["graphql"])) / len(answers["graphql"])),
        "sections_seen": sorted({line[3:] for text in answers["graphql"]
                                 for line in text.splitlines() if line.startswith("## ")}),
    }  # fmt: skip


def _summary(values: list[float]) -> dict[str, float]:
    return {f"p{q}_ms": round(percentile(values, q), 3) for q in (50, 95, 99)}


def render(report: dict[str, Any]) -> str:
    """The figures a reader checks: p50/p95 of each path, their ratio, and the goal."""
    latency = report["latency"]
    lines = [f"agentContext on the read corpus ({report['corpus']}), reader {report['reader']}, "
             f"{report['queries']} queries:"]  # fmt: skip
    for name, values in latency.items():
        lines.append(f"  {name:8} p50 {values['p50_ms']:7.2f} ms  p95 {values['p95_ms']:7.2f} ms")
    met = latency["graphql"]["p50_ms"] <= GOAL_P50_MS
    lines.append(
        f"  graphql/direct p50 x{report['ratio_p50']:.2f}  p95 x{report['ratio_p95']:.2f}; "
        f"same text {report['same_text']}/{report['queries']}; mean {report['mean_chars']} "
        f"chars; goal p50 <= {GOAL_P50_MS:.0f} ms: {'met' if met else 'MISSED'}"
    )
    lines.append(f"  sections seen: {', '.join(report['sections_seen'])}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    spec = Spec()
    settings = bench_settings(args.database, spec.dim)
    corpus = _prepare(settings, spec)
    print("measuring ...", file=sys.stderr)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        measured = runner.run(measure(settings, spec, args.queries))
    latency = measured["latency"]
    report = {
        "corpus": f"{spec.chunks:,} chunks, {spec.vertices:,} vertices, {spec.edges:,} edges, "
        f"{corpus}",
        "reader": f"{READER.client_id}/{READER.project_id}/{READER.group_id}",
        "queries": args.queries,
        "limit": LIMIT,
        "cpus": os.cpu_count(),
        **measured,
        "ratio_p50": latency["graphql"]["p50_ms"] / latency["direct"]["p50_ms"],
        "ratio_p95": latency["graphql"]["p95_ms"] / latency["direct"]["p95_ms"],
    }
    print(render(report))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
