"""``IngestionJob.progress`` and ``repositoryProgress``: a crawl job's or a repository job's
live counts, read from their progress boards.

Only crawl and repository jobs have counts, and a board is read only for a job the caller
could already see (the job field it hangs on was read at the caller's scope). Null when the
board does not know the job (not started, expired, or Redis unreachable).
"""

from __future__ import annotations

from kenning.domain.sources.code.progress import repository_progress
from kenning.domain.sources.crawl.crawl_run import job_progress as crawl_job_progress
from kenning.graphql.context import Info
from kenning.schema.sources.crawl_progress import CrawlProgress
from kenning.schema.sources.repository_progress import RepositoryProgress


async def job_progress(info: Info, job_id: str, source_kind: str | None) -> CrawlProgress | None:
    """The counts of the crawl job ``job_id``; ``None`` for any other job."""
    counts = await crawl_job_progress(job_id, source_kind, info.context.runtime.crawl_progress)
    if counts is None:
        return None
    return CrawlProgress(
        fetched=counts.fetched,
        unchanged=counts.unchanged,
        skipped=counts.skipped,
        failed=counts.failed,
        queued=counts.queued,
        stored=counts.stored,
    )


async def job_files(info: Info, job_id: str, source_kind: str | None) -> RepositoryProgress | None:
    """The file counts of the repository job ``job_id``; ``None`` for any other job."""
    board = info.context.runtime.repository_progress
    counts = await repository_progress(job_id, source_kind, board)
    if counts is None:
        return None
    return RepositoryProgress(
        planned=counts.planned,
        ingested=counts.ingested,
        unchanged=counts.unchanged,
        refused=counts.refused,
        skipped=counts.skipped,
        done=counts.done,
    )
