"""The crawl loop over a fake fetcher: failures, fresh pages and progress."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from kenning.domain.sources.crawl import (
    CrawlProgress,
    Fetch,
    FetchedPage,
    FetchError,
    PageStatus,
    PreviousPage,
    Validators,
    crawl,
    crawl_spec,
)

NOW = datetime(2025, 1, 2, tzinfo=UTC)


class FakeFetcher:
    """Pages by URL, each linking to the URLs given; other URLs fail."""

    def __init__(self, site: Mapping[str, tuple[str, ...]]) -> None:
        self.site = site
        self.asked: list[tuple[str, Validators | None]] = []

    async def fetch(self, url: str, validators: Validators | None = None) -> Fetch:
        self.asked.append((url, validators))
        if url not in self.site:
            raise FetchError(f"{url} answered HTTP 404", status=404)
        return FetchedPage(url, url, url, f"text of {url}", (), self.site[url], url, NOW)


class Sink:
    def __init__(self) -> None:
        self.urls: list[str] = []

    async def store(self, page: FetchedPage, crawled: Mapping[str, str]) -> None:
        self.urls.append(page.url)


SITE = {
    "http://x.test/": ("http://x.test/a", "http://x.test/gone", "http://other.test/"),
    "http://x.test/a": ("http://x.test/b",),
    "http://x.test/b": (),
}


async def test_a_failed_page_is_counted_and_the_crawl_goes_on() -> None:
    sink, seen = Sink(), list[CrawlProgress]()

    async def progress(counts: CrawlProgress) -> None:
        seen.append(counts)

    report = await crawl(crawl_spec("http://x.test/"), FakeFetcher(SITE), sink, progress)
    assert sink.urls == ["http://x.test/", "http://x.test/a", "http://x.test/b"]
    statuses = {o.url: o.status for o in report.outcomes}
    assert statuses["http://x.test/gone"] is PageStatus.FAILED
    assert "http://other.test/" not in statuses  # same_site
    assert report.progress == CrawlProgress(fetched=3, failed=1, stored=3)
    assert seen[0].queued == 2 and seen[-1] == report.progress


async def test_a_failed_start_url_raises() -> None:
    with pytest.raises(FetchError):
        await crawl(crawl_spec("http://x.test/missing"), FakeFetcher(SITE), Sink())


async def test_fresh_pages_are_not_fetched_but_followed() -> None:
    fetcher, sink = FakeFetcher(SITE), Sink()
    root, a = "http://x.test/", "http://x.test/a"
    previous = {
        root: PreviousPage(root, "old", NOW - timedelta(hours=1), links=(a,)),
        a: PreviousPage(a, a, NOW - timedelta(days=3), etag='"a"'),  # same hash as now
    }
    spec = crawl_spec("http://x.test/", recrawl_after=timedelta(days=1))
    report = await crawl(spec, fetcher, sink, previous=previous, now=NOW)
    assert [url for url, _ in fetcher.asked] == ["http://x.test/a", "http://x.test/b"]
    assert fetcher.asked[0][1] == Validators('"a"')
    statuses = [o.status for o in report.outcomes]
    assert statuses == [PageStatus.FRESH, PageStatus.UNCHANGED, PageStatus.FETCHED]
    assert sink.urls == ["http://x.test/b"]
