"""The "crawl" task runner: a queued crawl job fetched, stored page by page, with progress.

``crawl_runner`` builds the ``TaskRunner`` the queue registers for ``CRAWL_TASK``. A run
reads back what earlier crawls stored at the job's scope (``previous_pages``: the page nodes
reachable from the start URL through the links they kept), so a re-crawl sends
``If-None-Match``/``If-Modified-Since`` and stores nothing unchanged; each new or changed
page goes through ``ingest_graph(page_graph(...))`` under the job's lease, with
``checkpoint()`` before every page. Progress goes to a ``ProgressBoard`` after every page,
and at most every ``nudge_seconds`` the job's stage is recorded again, which bumps its
version so ``ingestionProgress``/``queueStatus`` subscribers see the job (and its
``progress``) change live.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import GraphReader
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.queue.jobs import Job, JobStage, JobStatus
from kenning.domain.queue.tasks import TaskRun, TaskRunner
from kenning.domain.sources.crawl.crawl_job import CRAWL_SOURCE_KIND, spec_from_payload
from kenning.domain.sources.crawl.crawl_loop import CrawlProgress, CrawlReport, crawl
from kenning.domain.sources.crawl.page_graph import page_graph, page_key, previous_page
from kenning.domain.sources.crawl.pages import FetchedPage, PageFetcher, PreviousPage
from kenning.domain.sources.crawl.spec import CrawlSpec

NUDGE_SECONDS: Final = 1.0
# Keys read per statement while walking the stored pages.
_READ_BATCH: Final = 500

FetcherFactory = Callable[[], AbstractAsyncContextManager[PageFetcher]]


class ProgressBoard(Protocol):
    """Short-lived progress of running crawl jobs, keyed by job id (Redis in production).

    Best effort both ways: ``put`` never raises for an unreachable store, and ``get``
    answers ``None`` (unknown) when it cannot read."""

    async def put(self, job: Job, progress: CrawlProgress) -> None: ...

    async def get(self, job_id: str) -> CrawlProgress | None: ...


async def job_progress(
    job_id: str, source_kind: str | None, board: ProgressBoard
) -> CrawlProgress | None:
    """The counts of ``job_id`` so far when it is a crawl job; ``None`` for any other job,
    and when the board does not know it (not started, expired, store unreachable).
    Read only for a job the caller could already see."""
    if source_kind != CRAWL_SOURCE_KIND:
        return None
    return await board.get(job_id)


async def previous_pages(
    spec: CrawlSpec, graph: GraphReader, scope: Scope
) -> dict[str, PreviousPage]:
    """What earlier crawls kept of the pages this crawl may reach: from the start URL
    through the stored pages' links, breadth first, within the spec's scope and limits."""
    kept: dict[str, PreviousPage] = {}
    wave, seen = [spec.url], {spec.url}
    for _ in range(spec.max_depth + 1):
        if not wave or len(kept) >= spec.max_pages:
            break
        found: dict[str, PreviousPage] = {}
        for start in range(0, len(wave), _READ_BATCH):
            keys = {page_key(url): url for url in wave[start : start + _READ_BATCH]}
            nodes = await graph.nodes(scope, list(keys))
            for key, node in nodes.items():
                page = previous_page(node.properties)
                if page is not None and page.url == keys[key]:
                    found[page.url] = page
        kept.update(found)
        wave = []
        for page in found.values():
            for link in page.links:
                if link not in seen and spec.allows(link):
                    seen.add(link)
                    wave.append(link)
    return kept


class _IngestSink:
    """Stores each new or changed page as its source ``web:<url>`` under the job's lease."""

    def __init__(self, run: TaskRun) -> None:
        self._run = run

    async def store(self, page: FetchedPage, crawled: Mapping[str, str]) -> None:
        run = self._run
        await run.checkpoint()
        request = page_graph(
            page,
            run.job.scope,
            crawled,
            chunk_limit=run.ingest.chunk_limit,
            priority=run.job.priority,
        )
        await ingest_graph(replace(request, connection_id=run.job.connection_id), run.ingest)


class _Reporter:
    """Puts each count on the board, renews the lease, and nudges subscribers now and then."""

    def __init__(self, run: TaskRun, board: ProgressBoard, nudge_seconds: float) -> None:
        self._run, self._board, self._every = run, board, nudge_seconds
        self._last = time.monotonic()

    async def __call__(self, progress: CrawlProgress) -> None:
        await self._run.checkpoint()
        await self._board.put(self._run.job, progress)
        now = time.monotonic()
        if now - self._last >= self._every:
            self._last = now
            await self._run.stage(JobStage.STORING if progress.stored else JobStage.READING)

    async def final(self, report: CrawlReport) -> None:
        await self._board.put(self._run.job, report.progress)


def crawl_runner(
    fetchers: FetcherFactory,
    graph: GraphReader,
    board: ProgressBoard,
    *,
    concurrency: int = 4,
    nudge_seconds: float = NUDGE_SECONDS,
) -> TaskRunner:
    """The runner of ``CRAWL_TASK`` jobs; ``fetchers()`` opens the page fetcher of one run
    (e.g. a ``SafeFetcher`` built from the settings)."""

    async def run(task: TaskRun) -> JobStatus:
        spec = spec_from_payload(task.payload)
        previous = await previous_pages(spec, graph, task.job.scope)
        reporter = _Reporter(task, board, nudge_seconds)
        async with fetchers() as fetcher:
            report = await crawl(
                spec,
                fetcher,
                _IngestSink(task),
                reporter,
                previous=previous,
                concurrency=concurrency,
            )
        await reporter.final(report)
        return JobStatus.INDEXED

    return run
