"""Purging what a source or a connection produced, and nothing else.

A purge ends the jobs that would still write what it removes before it removes anything:
their queued and running jobs at the purged scope are cancelled first (a running job's
write commits only while its lease is held, so it either committed before the cancel, and
the purge then removes what it wrote, or it rolls back). In the same transaction as the
chunks go the source's stored originals, including an upload whose job has not yet indexed
it (it has no ``sources`` row yet); a file job's write holds its original and finds it gone.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Sequence

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.ports import KnowledgeStore, LockWaitError, PurgedJobs, WriteUnit
from kenning.domain.ingestion.request import PurgeCounts

logger = logging.getLogger("kenning.ingestion")

# How long a purge waits for a job's write of the same source (cancelled, but a write
# under way ends only when it commits or rolls back) before it answers CONFLICT: waiting
# longer would hold a database connection per purge asked, for as long as the write runs.
PURGE_LOCK_WAIT = 5.0


async def _purge(unit: WriteUnit, scope: Scope, source_urn: str) -> PurgeCounts:
    # The originals first: a file job's write holds its original before the source's lock.
    files = await unit.remove_files(scope, source_urn)
    await unit.lock_source(scope, source_urn)
    counts, mentioned = await unit.remove_source(scope, source_urn)
    orphans = await unit.delete_orphans(scope, mentioned)
    return counts + PurgeCounts(vertices_deleted=orphans, files_deleted=files)


async def _waiting_briefly(write: Awaitable[PurgeCounts], what: str) -> PurgeCounts:
    try:
        return await write
    except LockWaitError:
        raise LockWaitError(
            f"{what} is being written by a job, now cancelled: nothing was purged; purge it "
            "again once the job has stopped"
        ) from None


async def remove_stored_source(scope: Scope, source_urn: str, store: KnowledgeStore) -> PurgeCounts:
    """Remove a source's chunks, originals, their evidence, edges left without evidence and
    vertices left orphaned, in one transaction; its jobs are the caller's (a job removing a
    source it no longer has)."""

    async def work(unit: WriteUnit) -> PurgeCounts:
        return await _purge(unit, scope, source_urn)

    return await store.write(work)


async def purge_source(
    scope: Scope, source_urn: str, store: KnowledgeStore, jobs: PurgedJobs
) -> PurgeCounts:
    """Cancel the source's queued and running jobs at ``scope``, then remove everything it
    stored there (``remove_stored_source``)."""
    if not source_urn.strip():
        raise ValidationError("sourceUrn is required", field="sourceUrn")
    started = time.perf_counter()
    cancelled = await jobs.cancel_purged(scope, source_urn=source_urn)

    async def work(unit: WriteUnit) -> PurgeCounts:
        await unit.limit_lock_wait(PURGE_LOCK_WAIT)
        return await _purge(unit, scope, source_urn)

    counts = await _waiting_briefly(store.write(work), f"the source {source_urn}")
    counts = counts + PurgeCounts(jobs_cancelled=cancelled)
    _log(counts, started, scope=scope.describe(), source_urn=source_urn)
    return counts


async def purge_connection(
    scope: Scope, connection_id: str, store: KnowledgeStore, jobs: PurgedJobs
) -> PurgeCounts:
    """Cancel the connection's queued and running jobs at ``scope``, then purge every source
    it produced there, in one transaction."""
    if not connection_id.strip():
        raise ValidationError("connectionId is required", field="connectionId")
    started = time.perf_counter()
    cancelled = await jobs.cancel_purged(scope, connection_id=connection_id)

    async def work(unit: WriteUnit) -> PurgeCounts:
        await unit.limit_lock_wait(PURGE_LOCK_WAIT)
        total = PurgeCounts(jobs_cancelled=cancelled)
        for urn in await unit.sources_of_connection(scope, connection_id):
            total = total + await _purge(unit, scope, urn)
        return total

    counts = await _waiting_briefly(store.write(work), f"a source of {connection_id}")
    _log(counts, started, scope=scope.describe(), connection_id=connection_id)
    return counts


async def purge_listed(
    scope: Scope, source_urns: Sequence[str], store: KnowledgeStore, cancelled: int, **where: str
) -> PurgeCounts:
    """Purge every one of ``source_urns`` at ``scope`` in one transaction, as
    ``purge_connection`` purges its sources, once the caller has cancelled (``cancelled``)
    the jobs that would write them; ``where`` says what was purged, for the log."""
    started = time.perf_counter()

    async def work(unit: WriteUnit) -> PurgeCounts:
        await unit.limit_lock_wait(PURGE_LOCK_WAIT)
        total = PurgeCounts(jobs_cancelled=cancelled)
        for urn in source_urns:
            total = total + await _purge(unit, scope, urn)
        return total

    counts = await _waiting_briefly(store.write(work), f"a source of {', '.join(where.values())}")
    _log(counts, started, scope=scope.describe(), **where)
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
            "files_deleted": counts.files_deleted,
            "jobs_cancelled": counts.jobs_cancelled,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
