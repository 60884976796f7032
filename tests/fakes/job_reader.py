"""The one fake of the queue's ``JobReader`` and ``PositionReader`` ports: one lane's
waiting jobs in claim order, counting what is read."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.queue.event_hub import JobPosition
from kenning.domain.queue.jobs import Job, JobEvent, JobStatus, Lane

NOW = datetime(2026, 11, 21, tzinfo=UTC)


class FakeLane:
    """One lane's queue in claim order; counts what the watch asks of it."""

    def __init__(self, lane: Lane, size: int) -> None:
        self.queued = [job(f"{lane.value}-{n}", lane) for n in range(size)]
        self.gets = 0
        self.position_reads: list[int] = []

    def rank(self, job_id: str) -> int | None:
        ids = [j.id for j in self.queued]
        return ids.index(job_id) + 1 if job_id in ids else None

    async def get(self, job_id: str, reader: Scope) -> Job | None:
        self.gets += 1
        found = next(j for j in self.queued if j.id == job_id)
        return replace(found, position=self.rank(job_id))

    async def positions(self, job_ids: Collection[str]) -> list[JobPosition]:
        self.position_reads.append(len(job_ids))
        ranks = {i: self.rank(i) for i in job_ids}
        return [JobPosition(i, 0, r) for i, r in ranks.items() if r is not None]

    def claim(self) -> JobEvent:
        taken = self.queued.pop(0)
        return JobEvent(replace(taken, status=JobStatus.RUNNING), JobStatus.QUEUED)


def job(job_id: str, lane: Lane) -> Job:
    """A queued job of ``lane``, of the lane's usual priority."""
    return Job(
        id=job_id, status=JobStatus.QUEUED, stage=None, lane=lane,
        priority=1 if lane is Lane.PRIORITY else 3, scope=Scope("acme"), source_urn=None,
        connection_id=None, source_kind=None, source_id=None, content_version=None,
        attempts=0, next_attempt_at=None, last_error=None, version=0, created_at=NOW,
        updated_at=NOW,
    )  # fmt: skip
