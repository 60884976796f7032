"""MCP benchmark: a search through MCP, over HTTP (``/mcp``) and over stdio (``kenning mcp``
forwarding to ``/mcp``), against the same search through GraphQL, on the read benchmark's
corpus (``bench.read``'s database, built the same way when missing); then an agent context
and a document ingest, each as an MCP tool over HTTP against the same GraphQL operation.

Run from the repository root::

    .venv/bin/python -m bench.mcp [--queries 300]

Each query goes three ways in turn, rotating which goes first: ``graphql`` posts
``search`` to the server asking for every field ``search_knowledge`` answers, ``mcp_http``
calls ``search_knowledge`` in one MCP session to the same server, ``mcp_stdio`` calls it
through a ``kenning mcp`` process. All three must return the same chunk ids. Reported: p50
of each, MCP over HTTP against GraphQL, and what the stdio hop adds (stdio p50 minus HTTP
p50). ``get_context`` against ``agentContext`` asks for the same fields of the same query;
``ingest_document`` against ``ingest`` (asking for the whole outcome) writes a note of its
own (a writer key of a client of its own, purged afterwards, so the corpus is unchanged).
Results go to stdout and ``bench/results/mcp.json``.
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

import httpx
import uvloop
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench._mcp_operations import IngestPaths, context_paths
from bench._processes import running_server
from bench._read_corpus import READER, Spec, search_queries
from bench._read_data import PREFIX, bench_settings, ready
from bench._read_measure import Interleaved, interleaved
from bench._read_server import SERVE
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from tests.support.mcp_session import mcp_session

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results" / "mcp.json"
KENNING = str(Path(sys.executable).with_name("kenning"))
KEY_LABEL = "bench-mcp"
LIMIT = 10
# The fields search_knowledge answers, so both paths read and send the same hits.
SEARCH = """query($q: String!, $limit: Int!) { search(query: $q, mode: KEYWORD, limit: $limit) {
  ... on SearchSuccess { hits { score vectorRank keywordRank chunk { id sourceUrn ordinal kind
  content scope { clientId projectId groupId } graphRefs knowledgeType infoType tags sourceKind
  connectionId externalId revision metadata createdAt observedAt supersededAt supersededBy }
  } } } }"""
WRITER = Scope("bench-mcp-writer")


def _ids(result: Any) -> list[str]:
    """The chunk ids of a ``search_knowledge`` result."""
    assert not result.is_error, result
    return [hit["chunk"]["id"] for hit in result.structured_content["hits"]]


async def measure(settings: Settings, spec: Spec, queries: int) -> dict[str, Any]:
    """p50 and CPU per path, and how many queries all three answered alike."""
    pool = await create_pool(settings)
    try:
        await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)
        key, _ = await PgApiKeys(pool).create(READER, Role.AGENT, KEY_LABEL)
        texts = search_queries(spec, queries + 20, salt=7)
        async with running_server(settings, key, command=SERVE) as server:
            url = f"http://127.0.0.1:{server.port}"
            params = StdioServerParameters(
                command=KENNING, args=["mcp", "--url", url], env={"KENNING_API_KEY": key}
            )
            async with (
                mcp_session(url, key) as http,
                stdio_client(params) as (read, write),
                ClientSession(read, write) as stdio,
            ):
                await stdio.initialize()

                async def graphql(text: str) -> list[str]:
                    answer = await server.client.post(
                        "/graphql", json={"query": SEARCH, "variables": {"q": text, "limit": LIMIT}}
                    )
                    return [h["chunk"]["id"] for h in answer.json()["data"]["search"]["hits"]]

                def tool(session: ClientSession) -> Any:
                    async def call(text: str) -> list[str]:
                        arguments = {"query": text, "mode": "KEYWORD", "limit": LIMIT}
                        return _ids(await session.call_tool("search_knowledge", arguments))

                    return call

                paths = {"graphql": graphql, "mcp_http": tool(http), "mcp_stdio": tool(stdio)}
                await interleaved(paths, texts[:20], pool)  # warm
                run = await interleaved(paths, texts[20:], pool, server.pid)
                context = await _twice(context_paths(server.client, http), texts, pool, server.pid)
            writer, _ = await PgApiKeys(pool).create(WRITER, Role.AGENT, KEY_LABEL)
            headers = {"Authorization": f"Bearer {writer}"}
            async with (
                httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client,
                mcp_session(url, writer) as session,
            ):
                notes = IngestPaths(client, session)
                ingest = await _twice(notes.paths(), texts, pool, server.pid)
                purged = await notes.purge()
    finally:
        await pool.close()
    answers = [run.answers[path] for path in ("graphql", "mcp_http", "mcp_stdio")]
    return {
        **_report(run),
        "agree": sum(a == b == c for a, b, c in zip(*answers, strict=True)),
        "queries": queries,
        "agent_context": _report(context),
        "ingest": {**_report(ingest), "purged": purged},
    }


async def _twice(paths: dict[str, Any], texts: list[str], pool: Any, pid: int) -> Interleaved:
    """A warm-up over the first 20 texts, then the measured run over the rest."""
    await interleaved(paths, texts[:20], pool)
    return await interleaved(paths, texts[20:], pool, pid)


def _report(run: Interleaved) -> dict[str, Any]:
    return {
        "latency": {path: asdict(value) for path, value in run.latency.items()},
        "cpu": {path: asdict(value) for path, value in run.cpu.items()},
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
    print(
        f"search p50: graphql {p50['graphql']:.2f} ms, mcp over http {p50['mcp_http']:.2f} ms "
        f"(x{p50['mcp_http'] / p50['graphql']:.2f}), mcp over stdio {p50['mcp_stdio']:.2f} ms "
        f"(+{p50['mcp_stdio'] - p50['mcp_http']:.2f} ms); agree {report['agree']}/{args.queries}"
    )
    for name in ("agent_context", "ingest"):
        p50 = {path: value["p50_ms"] for path, value in report[name]["latency"].items()}
        print(
            f"{name} p50: graphql {p50['graphql']:.2f} ms, mcp over http "
            f"{p50['mcp_http']:.2f} ms (x{p50['mcp_http'] / p50['graphql']:.2f})"
        )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
