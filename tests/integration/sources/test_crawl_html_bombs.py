"""Pages of a few KB gzipped whose HTML would cost gigabytes to extract, through the safe
fetcher against a site on loopback: each is refused TOO_LARGE by its elements and attributes
before it is parsed, the process's peak memory rising by a few times the page cap at most; a
long realistic page under the bound is extracted whole, and a page's links are kept up to
``MAX_PAGE_LINKS``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kenning.domain.sources.crawl import FetchedPage, PageTooLargeError
from kenning.storage.sources.crawl import DEFAULT_MAX_BYTES, SafeFetcher
from kenning.storage.sources.crawl.html_content import MAX_PAGE_LINKS
from tests.support import html_pages
from tests.support.compression_bombs import MIB, gzip_of
from tests.support.loopback_site import Encoded, serving_site
from tests.support.peak_memory import PeakMemory

NODES = "more than 250000 HTML elements and attributes"
# Each was measured extracting before the bound (see html_pages): 0.4 to 1.8 GB.
BOMBS: dict[str, tuple[Callable[[], str], str]] = {
    "a million <li>x": (lambda: html_pages.tiny_elements(1_000_000), NODES),
    "200,000 distinct links": (lambda: html_pages.distinct_links(200_000), NODES),
    "1.1 million attributes": (lambda: html_pages.dense_attributes(100_000), NODES),
    "700,000 comments": (lambda: html_pages.comments(700_000), NODES),
    "elements behind a script": (lambda: html_pages.hidden_in_a_script(300_000), NODES),
    "200,000 attributes on one element": (
        lambda: html_pages.one_element_attributes(200_000),
        "an element with more than 1000 attributes",
    ),
}


def fetcher() -> SafeFetcher:
    return SafeFetcher(allow_private=True, min_interval=0)


@pytest.mark.parametrize("name", list(BOMBS))
async def test_a_page_of_too_many_nodes_is_refused_before_it_is_parsed(name: str) -> None:
    build, excess = BOMBS[name]
    page = build().encode()
    assert len(page) <= DEFAULT_MAX_BYTES
    peak = PeakMemory()
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/bomb"] = Encoded(gzip_of(page), "gzip")
        await safe.fetch(site.base + "/")  # connections, robots.txt and parsing warmed up
        peak.reset()
        with pytest.raises(PageTooLargeError) as refused:
            await safe.fetch(site.base + "/bomb")
        rise = peak.rise()
    assert refused.value.message == f"{site.base}/bomb has {excess}"
    assert refused.value.code.value == "TOO_LARGE" and refused.value.limit == 250_000
    # The body, its text and their joins: a few copies of the page, never its tree.
    assert rise <= 4 * DEFAULT_MAX_BYTES, f"peak memory rose {rise / MIB:.1f} MiB"


async def test_a_long_realistic_page_under_the_bound_is_extracted_whole() -> None:
    page = html_pages.long_article(800)  # 1.1 MB, 41,000 nodes, 4,060 links
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/article"] = Encoded(gzip_of(page.encode()), "gzip")
        fetched = await safe.fetch(site.base + "/article")
    assert isinstance(fetched, FetchedPage) and fetched.title == "A long article"
    for s in (0, 400, 799):
        assert f"Paragraph 4 of section {s} describes" in fetched.text
    assert fetched.text.rstrip().endswith("The end of the article, after 800 sections.")
    assert "Topic 7" not in fetched.text and "Privacy policy" not in fetched.text
    assert len(fetched.links) == 4_000 and len(fetched.outlinks) == 4_060
    assert fetched.links[-1].url == site.base + "/wiki/Related_799_4"


async def test_a_page_keeps_its_first_links_up_to_the_cap_and_all_its_text() -> None:
    page = html_pages.link_index(12_000)
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/index"] = Encoded(gzip_of(page.encode()), "gzip")
        fetched = await safe.fetch(site.base + "/index")
    assert isinstance(fetched, FetchedPage)
    assert len(fetched.outlinks) == len(fetched.links) == MAX_PAGE_LINKS == 10_000
    assert fetched.outlinks[-1] == fetched.links[-1].url == site.base + "/wiki/Entry_9999"
    # Past the cap the anchors are still text, only their targets are not kept.
    assert "Entry 11999: see entry 11999." in fetched.text and "](" not in fetched.text
