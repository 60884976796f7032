"""The crawl over the safe fetcher against a real site on loopback (no database needed)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from kenning.domain.sources.crawl import (
    BlockedAddressError,
    CrawlProgress,
    FetchedPage,
    PageStatus,
    PreviousPage,
    crawl,
    crawl_spec,
)
from kenning.storage.sources.crawl import SafeFetcher
from tests.support.loopback_site import serving_site


class ListSink:
    def __init__(self) -> None:
        self.pages: list[FetchedPage] = []
        self.crawled: Mapping[str, str] = {}

    async def store(self, page: FetchedPage, crawled: Mapping[str, str]) -> None:
        self.pages.append(page)
        self.crawled = crawled


def private_fetcher(**options: object) -> SafeFetcher:
    return SafeFetcher(allow_private=True, min_interval=0, max_bytes=100_000, **options)  # type: ignore[arg-type]


async def test_crawl_fetches_in_order_strips_boilerplate_and_respects_robots() -> None:
    async with serving_site() as site, private_fetcher() as fetcher:
        sink, seen = ListSink(), list[CrawlProgress]()

        async def progress(counts: CrawlProgress) -> None:
            seen.append(counts)

        spec = crawl_spec(site.base + "/", max_depth=3, max_pages=20)
        report = await crawl(spec, fetcher, sink, progress, concurrency=1)

    by_url = {o.url.removeprefix(site.base): o for o in report.outcomes}
    assert [p.url.removeprefix(site.base) for p in sink.pages] == ["/", "/guide", "/api"]
    assert by_url["/private/notes"].status is PageStatus.SKIPPED
    assert by_url["/private/notes"].reason == "ROBOTS"
    assert by_url["/big"].status is PageStatus.FAILED and "TOO_LARGE" in (
        by_url["/big"].reason or ""
    )
    assert "/private/notes" not in site.paths()
    assert site.paths()[0] == "/robots.txt" and site.paths().count("/robots.txt") == 1
    guide = sink.pages[1]
    assert "Subscribe" not in guide.text and "Copyright" not in guide.text
    assert "API reference" in guide.text and guide.title == "Guide"
    link = next(x for x in guide.links if x.url == site.base + "/api")
    assert guide.text[link.start : link.end] == "API reference"
    assert seen[-1] == report.progress
    assert report.progress.fetched == 3 and report.progress.stored == 3
    assert report.progress.skipped == 1 and report.progress.failed == 1
    assert all(h["user-agent"].startswith("Kenning") for _, h in site.requests)


async def test_limits_bound_the_crawl() -> None:
    async with serving_site() as site, private_fetcher() as fetcher:
        shallow = await crawl(crawl_spec(site.base + "/", max_depth=1), fetcher, ListSink())
        few = await crawl(crawl_spec(site.base + "/", max_pages=2), fetcher, ListSink())
        only_api = await crawl(crawl_spec(site.base + "/", include=("/api",)), fetcher, ListSink())
    assert {o.url.removeprefix(site.base) for o in shallow.outcomes} == {"/", "/guide", "/api"}
    assert len(few.outcomes) == 2
    assert [o.url.removeprefix(site.base) for o in only_api.outcomes] == ["/", "/api"]


async def test_recrawl_sends_validators_and_stores_nothing_unchanged() -> None:
    async with serving_site() as site, private_fetcher() as fetcher:
        first = ListSink()
        await crawl(crawl_spec(site.base + "/", max_depth=3), fetcher, first)
        previous = {
            p.url: PreviousPage(p.url, p.content_hash, p.fetched_at, p.etag, p.last_modified,
                                p.outlinks)
            for p in first.pages
        }  # fmt: skip
        site.requests.clear()
        site.pages["/api"] = site.pages["/api"].replace("Back to", "Return to")
        again = ListSink()
        report = await crawl(crawl_spec(site.base + "/", max_depth=3), fetcher, again,
                             previous=previous)  # fmt: skip

    sent = dict(site.requests)
    assert sent["/"]["if-none-match"] == first.pages[0].etag
    assert sent["/guide"]["if-modified-since"] == first.pages[1].last_modified
    status = {o.url.removeprefix(site.base): o.status for o in report.outcomes}
    assert status["/"] is PageStatus.UNCHANGED and status["/guide"] is PageStatus.UNCHANGED
    assert status["/api"] is PageStatus.FETCHED  # changed, and still reached through a 304
    assert [p.url for p in again.pages] == [site.base + "/api"]


async def test_a_redirect_is_followed_and_the_page_keeps_its_final_url() -> None:
    async with serving_site() as site, private_fetcher() as fetcher:
        page = await fetcher.fetch(site.base + "/moved")
    assert isinstance(page, FetchedPage)
    assert page.url == site.base + "/api" and page.requested == site.base + "/moved"


async def test_private_addresses_are_refused_without_allow_private() -> None:
    async with serving_site() as site, SafeFetcher(min_interval=0) as fetcher:
        with pytest.raises(BlockedAddressError) as refused:
            await crawl(crawl_spec(site.base + "/"), fetcher, ListSink())
        with pytest.raises(BlockedAddressError):
            await fetcher.fetch(f"http://localhost:{site.port}/")
    assert refused.value.field == "url" and "loopback" in refused.value.message
    assert site.requests == []


@pytest.mark.parametrize(
    ("path", "address"),
    [("/to-loopback", "127.0.0.1"), ("/to-metadata", "169.254.169.254"), ("/to-v6", "::1")],
)
async def test_every_redirect_is_checked_again(path: str, address: str) -> None:
    # Exactly the site's own address is allowed, so the first hop passes.
    allowed = SafeFetcher(allowed_networks=["127.0.0.2/32"], min_interval=0)
    async with serving_site() as site, allowed as fetcher:
        with pytest.raises(BlockedAddressError) as refused:
            await fetcher.fetch(site.base + path)
    assert refused.value.address == address
    assert path in site.paths()


async def test_a_name_is_resolved_once_and_the_connection_pinned_to_it() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return {"docs.test": ["127.0.0.2"], "mixed.test": ["127.0.0.2", "10.1.2.3"]}[host]

    async with (
        serving_site() as site,
        SafeFetcher(
            allowed_networks=["127.0.0.2/32"], resolver=resolver, min_interval=0
        ) as fetcher,
    ):
        page = await fetcher.fetch(f"http://docs.test:{site.port}/api")
        with pytest.raises(BlockedAddressError) as refused:
            await fetcher.fetch(f"http://mixed.test:{site.port}/api")
    assert isinstance(page, FetchedPage) and page.title == "API"
    assert site.requests[-1][1]["host"] == f"docs.test:{site.port}"
    assert refused.value.address == "10.1.2.3"
