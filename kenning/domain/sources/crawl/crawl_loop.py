"""The crawl: visit the frontier breadth first, classify each page, store what changed.

Each visited URL ends as one ``PageOutcome``: ``FETCHED`` (new or changed, handed to the
sink), ``UNCHANGED`` (a 304, or the same content hash as before), ``FRESH`` (fetched less
than ``recrawl_after`` ago, not fetched at all), ``SKIPPED`` (robots.txt, redirected out of
scope or onto a page already crawled) or ``FAILED``. Unchanged and fresh pages are followed
through the links the previous crawl kept, so a re-crawl still reaches every page.

The sink is called after the last fetch, in crawl order, because a page's ``links_to``
edges may only name pages the crawl reached, and a link may point to a page not yet
visited. A failure of the start URL raises (it is the caller's input); later failures are
counted and the crawl goes on. ``progress`` is awaited after every page and every store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum

from kenning.domain.errors import KenningError
from kenning.domain.sources.crawl.frontier import Frontier, Visit
from kenning.domain.sources.crawl.pages import (
    Fetch,
    FetchedPage,
    NotModified,
    PageFetcher,
    PageSink,
    PreviousPage,
    Skipped,
)
from kenning.domain.sources.crawl.spec import CrawlSpec

DEFAULT_CONCURRENCY = 4


class PageStatus(StrEnum):
    """How the visit of one URL ended."""

    FETCHED = "FETCHED"
    UNCHANGED = "UNCHANGED"
    FRESH = "FRESH"
    SKIPPED = "SKIPPED"
    FAILED = "FAILED"


@dataclass(frozen=True, slots=True)
class PageOutcome:
    """One visited URL: depth, status, the page it gave (after redirects) and why."""

    url: str
    depth: int
    status: PageStatus
    page_url: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class CrawlProgress:
    """Counts so far: ``unchanged`` includes fresh pages; ``queued`` waits in the frontier."""

    fetched: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0
    queued: int = 0
    stored: int = 0


@dataclass(frozen=True, slots=True)
class CrawlReport:
    """What a crawl did: every visit in order, the URL → page map, the final counts."""

    outcomes: tuple[PageOutcome, ...]
    crawled: Mapping[str, str]
    progress: CrawlProgress


ProgressCallback = Callable[[CrawlProgress], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class _Fresh:
    previous: PreviousPage


@dataclass(slots=True)
class _State:
    spec: CrawlSpec
    previous: Mapping[str, PreviousPage]
    now: datetime
    frontier: Frontier
    home: str
    outcomes: list[PageOutcome] = field(default_factory=list)
    crawled: dict[str, str] = field(default_factory=dict)
    pages: set[str] = field(default_factory=set)
    changed: list[FetchedPage] = field(default_factory=list)
    counts: dict[PageStatus, int] = field(default_factory=lambda: dict.fromkeys(PageStatus, 0))
    stored: int = 0

    def progress(self) -> CrawlProgress:
        c = self.counts
        return CrawlProgress(
            c[PageStatus.FETCHED],
            c[PageStatus.UNCHANGED] + c[PageStatus.FRESH],
            c[PageStatus.SKIPPED],
            c[PageStatus.FAILED],
            len(self.frontier),
            self.stored,
        )

    def record(self, outcome: PageOutcome) -> None:
        self.outcomes.append(outcome)
        self.counts[outcome.status] += 1


async def crawl(
    spec: CrawlSpec,
    fetcher: PageFetcher,
    sink: PageSink,
    progress: ProgressCallback | None = None,
    *,
    previous: Mapping[str, PreviousPage] | None = None,
    now: datetime | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> CrawlReport:
    """Crawl ``spec`` with ``fetcher``, hand new or changed pages to ``sink``, report.

    ``previous`` maps a page's URL to what the last crawl kept (validators, hash, links);
    up to ``concurrency`` pages are fetched at once, settled in frontier order.
    """
    state = _State(
        spec, previous or {}, now or datetime.now(UTC), Frontier(spec.max_depth), spec.url
    )
    state.frontier.add(spec.url, 0)
    visited = 0
    while len(state.frontier) and visited < spec.max_pages:
        batch = state.frontier.take(min(max(concurrency, 1), spec.max_pages - visited))
        visited += len(batch)
        results = await asyncio.gather(
            *(_visit(visit, state, fetcher) for visit in batch), return_exceptions=True
        )
        for visit, result in zip(batch, results, strict=True):
            _settle(visit, result, state)
            if progress is not None:
                await progress(state.progress())
    for page in state.changed:
        await sink.store(page, state.crawled)
        state.stored += 1
        if progress is not None:
            await progress(state.progress())
    return CrawlReport(tuple(state.outcomes), dict(state.crawled), state.progress())


async def _visit(visit: Visit, state: _State, fetcher: PageFetcher) -> Fetch | _Fresh:
    before = state.previous.get(visit.url)
    if before is None:
        return await fetcher.fetch(visit.url)
    after = state.spec.recrawl_after
    if after is not None and state.now - before.fetched_at < after:
        return _Fresh(before)
    return await fetcher.fetch(visit.url, before.validators)


def _settle(visit: Visit, result: Fetch | _Fresh | BaseException, state: _State) -> None:
    if isinstance(result, KenningError):
        if visit.depth == 0:
            raise result
        state.record(
            PageOutcome(
                visit.url, visit.depth, PageStatus.FAILED, None, f"{result.code}: {result.message}"
            )
        )
    elif isinstance(result, BaseException):
        raise result
    elif isinstance(result, Skipped):
        state.record(PageOutcome(visit.url, visit.depth, PageStatus.SKIPPED, None, result.reason))
    elif isinstance(result, _Fresh | NotModified):
        fresh = isinstance(result, _Fresh)
        status = PageStatus.FRESH if fresh else PageStatus.UNCHANGED
        state.crawled[visit.url] = visit.url
        state.pages.add(visit.url)
        state.record(PageOutcome(visit.url, visit.depth, status, visit.url))
        kept = state.previous.get(visit.url)
        _follow(kept.links if kept else (), visit, state)
    else:
        _settle_page(visit, result, state)


def _settle_page(visit: Visit, page: FetchedPage, state: _State) -> None:
    state.frontier.mark(page.url)
    if visit.depth == 0:
        state.home = page.url
    elif page.url in state.pages or not state.spec.allows(page.url, state.home):
        # A redirect onto a page already crawled, or off the site.
        reason = "DUPLICATE" if page.url in state.pages else "OUT_OF_SCOPE"
        if reason == "DUPLICATE":
            state.crawled[visit.url] = page.url
        state.record(PageOutcome(visit.url, visit.depth, PageStatus.SKIPPED, page.url, reason))
        return
    state.crawled[visit.url] = page.url
    state.crawled[page.url] = page.url
    state.pages.add(page.url)
    before = state.previous.get(page.url)
    if before is not None and before.content_hash == page.content_hash:
        state.record(PageOutcome(visit.url, visit.depth, PageStatus.UNCHANGED, page.url))
    else:
        state.changed.append(page)
        state.record(PageOutcome(visit.url, visit.depth, PageStatus.FETCHED, page.url))
    _follow(page.outlinks, visit, state)


def _follow(links: tuple[str, ...], visit: Visit, state: _State) -> None:
    for link in links:
        if state.frontier.seen(link):
            continue
        if state.spec.allows(link, state.home):
            state.frontier.add(link, visit.depth + 1, visit.url)
        else:
            state.frontier.mark(link)
