"""Purging what a source or a connection produced, and nothing else."""

from __future__ import annotations

import logging
import time

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.ports import KnowledgeStore, WriteUnit
from kenning.domain.ingestion.request import PurgeCounts

logger = logging.getLogger("kenning.ingestion")


async def _purge(unit: WriteUnit, scope: Scope, source_urn: str) -> PurgeCounts:
    await unit.lock_source(scope, source_urn)
    counts, mentioned = await unit.remove_source(scope, source_urn)
    orphans = await unit.delete_orphans(scope, mentioned)
    return counts + PurgeCounts(vertices_deleted=orphans)


async def purge_source(scope: Scope, source_urn: str, store: KnowledgeStore) -> PurgeCounts:
    """Remove a source's chunks, their evidence, edges left without evidence and vertices
    left orphaned, in one transaction."""
    if not source_urn.strip():
        raise ValidationError("sourceUrn is required", field="sourceUrn")
    started = time.perf_counter()

    async def work(unit: WriteUnit) -> PurgeCounts:
        return await _purge(unit, scope, source_urn)

    counts = await store.write(work)
    _log(counts, started, scope=scope.describe(), source_urn=source_urn)
    return counts


async def purge_connection(scope: Scope, connection_id: str, store: KnowledgeStore) -> PurgeCounts:
    """Purge every source the connection produced at ``scope``, in one transaction."""
    if not connection_id.strip():
        raise ValidationError("connectionId is required", field="connectionId")
    started = time.perf_counter()

    async def work(unit: WriteUnit) -> PurgeCounts:
        total = PurgeCounts()
        for urn in await unit.sources_of_connection(scope, connection_id):
            total = total + await _purge(unit, scope, urn)
        return total

    counts = await store.write(work)
    _log(counts, started, scope=scope.describe(), connection_id=connection_id)
    return counts


def _log(counts: PurgeCounts, started: float, **where: str) -> None:
    logger.info(
        "ingestion.purged",
        extra={
            **where,
            "sources": counts.sources,
            "chunks": counts.chunks,
            "evidence_removed": counts.evidence_removed,
            "edges_deleted": counts.edges_deleted,
            "vertices_deleted": counts.vertices_deleted,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
