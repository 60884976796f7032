"""The read-cost part of ``bench.memory_truth``: on the read benchmark's corpus, 2-hop
``neighbors`` and ``agentContext`` in process with no validity filter (the baseline: what the
reads cost before facts had a time), with the filter (now) and as of a past time."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bench._read_corpus import READER, Spec, node_keys, search_queries, visible_start_keys
from bench._read_data import PREFIX, bench_settings, load, recreate, stale_reason
from kenning.domain.graph.model import Direction
from kenning.domain.graph.traverse import NeighborsQuery, neighbors
from kenning.domain.memory.agent_context import MemoryPorts, When
from kenning.domain.memory.context_request import context_for_keys
from kenning.storage.access.project_groups import PgProjectGroups
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.graph.chunk_reads import PgChunkReader
from kenning.storage.graph.read_sql import Validity
from kenning.storage.graph.reader import PgGraphReader
from kenning.storage.ingestion.alias_registry import PgAliasRegistry
from kenning.storage.memory.procedures import PgProcedureStore
from kenning.storage.memory.rules import PgRuleStore
from kenning.storage.memory.session_entries import PgSessionStore
from kenning.storage.memory.user_knowledge import PgUserKnowledge
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan

# The corpus's edges are valid from 2025-01-01: as of this time every one held, so the three
# ways read the same edges and differ only by the filter.
AS_OF = datetime(2025, 6, 1, tzinfo=UTC)
WARM_UP = 20

Interleave = Callable[[dict[str, Callable[[], Awaitable[object]]], int, int],
                      Awaitable[dict[str, Any]]]  # fmt: skip


class _Unfiltered(PgGraphReader):
    """Every edge, at any time asked: the reads as they were before edges had a time."""

    def at(self, when: datetime | None) -> PgGraphReader:
        return self


async def read_cost(queries: int, interleaved: Interleave) -> dict[str, Any]:
    """p50/p95 of each operation three ways, interleaved one call at a time."""
    spec = Spec()
    settings = bench_settings(PREFIX, spec.dim)
    reason = await stale_reason(settings, spec)
    if reason is not None:
        print(f"building the read corpus ({reason}) ...", file=sys.stderr)
        await asyncio.to_thread(recreate, settings)
        await load(settings, spec)
    pool = await create_pool(settings)
    try:
        graph = settings.graph_name
        readers = {
            "unfiltered": _Unfiltered(pool, graph, validity=Validity.EVERY),
            "now": PgGraphReader(pool, graph),
            "as_of": PgGraphReader(pool, graph, AS_OF),
        }
        starts = visible_start_keys(spec, node_keys(spec))
        texts = search_queries(spec, WARM_UP + queries, salt=5)
        ops: dict[str, Any] = {}
        turn = iter(range(10**9))

        def near(reader: PgGraphReader) -> Callable[[], Awaitable[object]]:
            async def call() -> object:
                start = starts[next(turn) % len(starts)]
                query = NeighborsQuery(start, 2, Direction.BOTH, None, 100)
                return await neighbors(reader, READER, query)

            return call

        ops["neighbors"] = await interleaved(
            {name: near(r) for name, r in readers.items()}, queries, WARM_UP
        )
        aliases, base = PgAliasRegistry(pool), _ports(pool, settings, readers["now"])

        def context(name: str) -> Callable[[], Awaitable[object]]:
            ports = replace(base, graph=readers[name])
            when = When(AS_OF) if name == "as_of" else None

            async def call() -> object:
                i = next(turn)
                user, a, b = (starts[(3 * i + k) % len(starts)] for k in range(3))
                return await context_for_keys(
                    texts[i % len(texts)], user=(user, "userKey"), entity_keys=[a, b],
                    limit=10, reader=READER, now=datetime.now(UTC), ports=ports,
                    aliases=aliases, when=when,
                )  # fmt: skip

            return call

        ops["agentContext"] = await interleaved(
            {name: context(name) for name in readers}, queries, WARM_UP
        )
    finally:
        await pool.close()
    return {"corpus": f"{spec.chunks:,} chunks, {spec.edges:,} edges", "as_of": AS_OF.isoformat(),
            "queries": queries, "ops": ops}  # fmt: skip


def _ports(pool: Any, settings: Any, graph: PgGraphReader) -> MemoryPorts:
    return MemoryPorts(
        embedder=create_embedder(settings),
        index=PgChunkIndex(pool, VectorScan.from_settings(settings)),
        graph=graph, chunks=PgChunkReader(pool), knowledge=PgUserKnowledge(pool),
        session=PgSessionStore(pool), procedures=PgProcedureStore(pool),
        rules=PgRuleStore(pool), groups=PgProjectGroups(pool),
    )  # fmt: skip
