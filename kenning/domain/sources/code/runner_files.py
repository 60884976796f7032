"""A repository run's files ingested a few at a time.

Each file is still its own source, its own transaction and its own checkpoint; running a
few at once lets one file's database work (mostly the HNSW index insert of its chunks)
overlap with the next file's Python work (keys, chunks, embedding). ``FILES_AT_ONCE``, three,
stored faster than one at a time in ``bench.code`` (figures on the documentation's Benchmarks
page); its ``--files-at-once`` measures other widths.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.graph_items import GraphRequest
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.request import PurgeCounts
from kenning.domain.sources.code.pipeline import AppliedPlan, apply_plan

FILES_AT_ONCE = 3


async def ingest_files(
    requests: Iterable[GraphRequest],
    scope: Scope,
    deps: IngestDeps,
    checkpoint: Callable[[], Awaitable[None]],
    *,
    width: int = FILES_AT_ONCE,
) -> AppliedPlan:
    """Ingest each request on its own, at most ``width`` at once, ``checkpoint()`` before
    each; outcomes and refusals in request order. A failure stops the others."""
    if width < 1:
        raise ValueError("width must be at least 1")
    pending = iter(enumerate(requests))
    done: dict[int, AppliedPlan] = {}

    async def lane() -> None:
        for index, request in pending:  # the lanes share one iterator: each file once
            await checkpoint()
            done[index] = await apply_plan((request,), (), scope, deps)

    async with asyncio.TaskGroup() as group:
        for _ in range(width):
            group.create_task(lane())
    ordered = [done[index] for index in sorted(done)]
    return AppliedPlan(
        tuple(o for a in ordered for o in a.outcomes),
        PurgeCounts(),
        tuple(r for a in ordered for r in a.refused),
    )
