"""A job's write that commits only while the job is held, without ending it: the chunks of
an ingest that graph extraction follows (``JobDeps.held_store``).

In the write's transaction the job's row is locked ``FOR SHARE`` under its lease (a cancel
or an expiry waits, then finds the chunks committed with the job still RUNNING, or takes
the job first and the write rolls back), and a named connection must not be revoked (the
same check as the job-ending write of ``storage.queue.job_leases``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.jobs import Lease, LeaseLostError
from kenning.storage.ingestion.knowledge_store import PgKnowledgeStore, PgWriteUnit

T = TypeVar("T")

_HELD = """SELECT 1 FROM ingestion_jobs
           WHERE id = $1 AND lease_owner = $2 AND status = 'RUNNING' FOR SHARE"""
# Every source the write stores remembers the job (trigger ``sources_job_id``, migration
# 0029), so a crawl's pages can be purged as one unit.
_JOB = "SELECT set_config('kenning.job_id', $1, true)"
_REVOKED = """SELECT status = 'REVOKED' FROM connections
              WHERE client_id = $1 AND connection_id = $2 FOR SHARE"""


def held_store(
    store: KnowledgeStore, lease: Lease, connection: tuple[str, str] | None
) -> KnowledgeStore:
    """``store`` whose writes check the lease and the connection in their transaction."""
    if not isinstance(store, PgKnowledgeStore):
        raise TypeError("a held write needs PgKnowledgeStore's transaction")
    return _HeldStore(store, lease, connection)


class _HeldStore:
    def __init__(
        self, store: PgKnowledgeStore, lease: Lease, connection: tuple[str, str] | None
    ) -> None:
        self._store, self._lease, self._connection = store, lease, connection

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self._store.source_hash(scope, source_urn)

    async def write(self, work: Callable[[PgWriteUnit], Awaitable[T]]) -> T:
        async def within(unit: PgWriteUnit) -> T:
            conn = unit.connection
            await conn.execute(_JOB, self._lease.job_id)
            result = await work(unit)
            if await conn.fetchval(_HELD, self._lease.job_id, self._lease.owner) is None:
                raise LeaseLostError(f"job {self._lease.job_id} is no longer held")
            if self._connection is not None and await conn.fetchval(_REVOKED, *self._connection):
                raise ConnectionRevokedError(self._connection[1])
            return result

        return await self._store.write(within)
