"""The one fake of the queue's ``WorkQueue`` port: lease-checked writes recorded in order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.queue.jobs import JobStage, JobStatus, Lane, Lease, LeaseLostError

T = TypeVar("T")


class FakeWorkQueue:
    """Records every lease-checked write; ``lost`` makes them all fail."""

    def __init__(self, *, lost: bool = False) -> None:
        self.log: list[tuple[str, Any]] = []
        self.lost = lost

    def _check(self) -> None:
        if self.lost:
            raise LeaseLostError("gone")

    async def set_stage(self, lease: Lease, stage: JobStage) -> None:
        self._check()
        self.log.append(("stage", stage))

    async def finish(self, lease: Lease, status: JobStatus, error: str | None = None) -> None:
        self._check()
        self.log.append(("finish", (status, error)))

    async def retry_later(
        self, lease: Lease, error: str, delay: float, *, for_model: bool = False
    ) -> None:
        self._check()
        self.log.append(("retry_for_model" if for_model else "retry", (delay, error)))

    def bound_store(
        self,
        store: KnowledgeStore,
        lease: Lease,
        outcome: Callable[[object], JobStatus],
        connection: tuple[str, str] | None,
    ) -> KnowledgeStore:
        queue = self

        class Bound:
            async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
                return await store.source_hash(scope, source_urn)

            async def write(self, work: Callable[[Any], Awaitable[T]]) -> T:
                async def within(unit: Any) -> T:
                    result = await work(unit)
                    queue._check()
                    queue.log.append(("finish-in-write", outcome(result)))
                    return result

                return await store.write(within)

        return Bound()

    async def claim(self, lane: Lane, owner: str, lease_seconds: float) -> None:
        return None

    async def heartbeat(self, leases: Collection[Lease], lease_seconds: float) -> set[str]:
        self.log.append(("heartbeat", len(leases)))
        return set() if self.lost else {lease.job_id for lease in leases}

    async def release(self, lease: Lease) -> None:
        return None

    async def recover_expired(self) -> int:
        return 0
