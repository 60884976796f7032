"""How far a repository run is: its files planned and what became of each so far, put on
a ``RepositoryBoard`` after every batch (Redis: ``kenning.storage.queue.progress_board``),
so ``IngestionJob.repositoryProgress`` and ``kenning ingest-repo`` can follow it live."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kenning.domain.queue.jobs import Job
from kenning.domain.sources.code.repository_request import REPOSITORY_TASK


@dataclass(frozen=True, slots=True)
class RepositoryProgress:
    """Files this run plans to ingest, and so far: ingested (new or changed), unchanged
    (the same content hash), refused (a credential, a bad request), skipped (unparsable or
    too large)."""

    planned: int = 0
    ingested: int = 0
    unchanged: int = 0
    refused: int = 0
    skipped: int = 0

    @property
    def done(self) -> int:
        return self.ingested + self.unchanged + self.refused + self.skipped


class RepositoryBoard(Protocol):
    """Short-lived progress of running repository jobs, keyed by job id; best effort both
    ways, as the crawl's board."""

    async def put(self, job: Job, progress: RepositoryProgress) -> None: ...

    async def get(self, job_id: str) -> RepositoryProgress | None: ...


async def repository_progress(
    job_id: str, source_kind: str | None, board: RepositoryBoard
) -> RepositoryProgress | None:
    """The counts of ``job_id`` when it is a repository job the board knows; read only for
    a job the caller could already see."""
    if source_kind != REPOSITORY_TASK:
        return None
    return await board.get(job_id)
