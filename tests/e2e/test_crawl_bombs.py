"""Compression bombs against a real `kenning serve` whose own queue worker crawls: an agent
points `crawl` at pages of a few KB that inflate to gigabytes (stacked gzip, stacked
deflate, raw deflate); each crawl ends TOO_LARGE and the server's peak resident memory
(VmHWM) rises by at most twice the page limit. A `br` page is refused unread, and a gzip
page is crawled and indexed exactly as its plain copy.

HTML bombs too: pages within the byte limit (a few KB gzipped) whose elements and attributes
would cost gigabytes to parse end TOO_LARGE on `KENNING_MAX_HTML_NODES`, the server's peak
rising by a few times the page at most, while a long article under it is indexed as
extracted."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.sources.crawl import page_content_hash, page_key
from kenning.settings import Settings
from kenning.storage.sources.crawl.html_content import extract_page
from tests.support import html_pages
from tests.support.compression_bombs import (
    MIB,
    deflated_zeros,
    gzip_of,
    gzip_zeros,
    zlib_of,
    zlib_zeros,
)
from tests.support.loopback_site import Encoded, default_pages, serving_site
from tests.support.peak_memory import PeakMemory
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

# Twice it is the bound the peak may rise by; at 4 MiB the server's own churn while a job
# runs (status polls, the worker's claims: up to 3 MiB measured) stays well inside it.
LIMIT = 4 * MIB
NODES = 200_000  # not the default, so that the setting is seen to reach the crawl
CRAWL = """mutation C($input: CrawlInput!) { crawl(input: $input) {
  __typename ... on IngestionHandle { jobId } ... on Error { code message } } }"""
STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) {
  status lastError progress { fetched failed stored } } }"""
CHUNKS = """query C($q: String!, $urn: String!) {
  search(query: $q, mode: KEYWORD, sourceUrns: [$urn], limit: 50) {
    ... on SearchSuccess { hits { chunk { ordinal content } } } } }"""
NODE = "query N($key: String!) { node(key: $key) { properties } }"

# Built when a test runs: the bodies of gigabyte bombs take a second to checksum.
BOMBS: dict[str, tuple[str, Callable[[], bytes]]] = {
    "gzip-gzip-3GiB": ("gzip, gzip", lambda: gzip_of(gzip_zeros(3 * 1024))),
    "deflate-deflate-1GiB": ("deflate, deflate", lambda: zlib_of(zlib_zeros(1024))),
    "deflate-gzip-1GiB": ("deflate, gzip", lambda: gzip_of(zlib_zeros(1024))),
    "raw-deflate-7MiB": ("deflate", lambda: deflated_zeros(7)),
}


@dataclass(frozen=True)
class Crawler:
    server: Server
    pid: int


@pytest.fixture(scope="module")
def crawler(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Crawler]:
    """A server with one queue worker, a 4 MiB page limit, allowed to crawl loopback."""
    log = tmp_path_factory.mktemp("crawl-bombs") / "server.log"
    process, server = start_server(
        migrated_settings,
        log,
        KENNING_QUEUE_WORKERS="1",
        KENNING_CRAWL_ALLOW_PRIVATE="true",
        KENNING_CRAWL_MIN_INTERVAL_SECONDS="0",
        KENNING_CRAWL_MAX_PAGE_BYTES=str(LIMIT),
        KENNING_MAX_HTML_NODES=str(NODES),
    )
    scope = Scope(f"bombs-{uuid.uuid4().hex[:8]}")
    key = asyncio.run(create_key(migrated_settings, scope, Role.AGENT))
    try:
        yield Crawler(server.with_key(key), process.pid)
    finally:
        stop_server(process)


async def graphql(client: httpx.AsyncClient, server: Server, query: str, **variables: Any) -> Any:
    response = await client.post(
        f"{server.url}/graphql",
        json={"query": query, "variables": variables},
        headers=server.headers,
    )
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    return body["data"]


async def crawled(client: httpx.AsyncClient, server: Server, url: str) -> dict[str, Any]:
    """Crawl ``url`` alone and wait for the job to end; its status, error and counts."""
    handle = (await graphql(client, server, CRAWL, input={"url": url, "maxDepth": 0}))["crawl"]
    assert handle["__typename"] == "IngestionHandle", handle
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = await graphql(client, server, STATUS, id=handle["jobId"])
        job = job["ingestionStatus"]
        if job["status"] in {"INDEXED", "FAILED", "CANCELLED"}:
            return job
        await asyncio.sleep(0.1)
    raise AssertionError(f"crawl of {url} not done in 60 s:\n{server.log.read_text()}")


async def stored(client: httpx.AsyncClient, server: Server, url: str) -> dict[str, Any]:
    """What the crawl kept of the page at ``url``: its node's title and hash, its chunks."""
    node = (await graphql(client, server, NODE, key=page_key(url)))["node"]
    hits = await graphql(client, server, CHUNKS, q="Kenning chunks graph", urn=f"web:{url}")
    chunks = sorted((h["chunk"]["ordinal"], h["chunk"]["content"]) for h in hits["search"]["hits"])
    properties = node["properties"]
    return {"title": properties["title"], "hash": properties["contentHash"], "chunks": chunks}


async def test_a_gzip_page_is_crawled_and_indexed_as_its_plain_copy(crawler: Crawler) -> None:
    home = default_pages()["/"].encode()
    async with serving_site() as site, httpx.AsyncClient(timeout=30) as client:
        site.encoded["/gzip"] = Encoded(gzip_of(home), "gzip")
        site.encoded["/deflate"] = Encoded(zlib_of(home), "deflate")
        paths = ("/", "/gzip", "/deflate")
        jobs = [await crawled(client, crawler.server, site.base + p) for p in paths]
        kept = [await stored(client, crawler.server, site.base + p) for p in paths]
    assert [j["status"] for j in jobs] == ["INDEXED"] * 3, jobs
    assert all(j["progress"] == {"fetched": 1, "failed": 0, "stored": 1} for j in jobs), jobs
    assert kept[0]["title"] == "Welcome" and kept[0]["chunks"]
    assert kept[1] == kept[0] and kept[2] == kept[0]
    assert all(h["accept-encoding"] == "gzip, deflate" for _, h in site.requests)


@pytest.mark.parametrize("name", list(BOMBS))
async def test_a_compression_bomb_ends_too_large_in_bounded_server_memory(
    crawler: Crawler, name: str
) -> None:
    encoding, build = BOMBS[name]
    bomb = build()
    assert 1024 <= len(bomb) <= 8 * 1024
    peak = PeakMemory(crawler.pid)
    async with serving_site() as site, httpx.AsyncClient(timeout=30) as client:
        # Unmeasured: the first failing crawl pays what any first run of it pays.
        site.encoded["/warm"] = Encoded(gzip_zeros(5), "gzip")
        warm = await crawled(client, crawler.server, site.base + "/warm")
        site.encoded["/bomb"] = Encoded(bomb, encoding)
        peak.reset()
        job = await crawled(client, crawler.server, site.base + "/bomb")
        rise = peak.rise()
    assert warm["lastError"] == f"TOO_LARGE: {site.base}/warm is larger than {LIMIT} bytes"
    assert job["status"] == "FAILED", job
    assert job["lastError"] == f"TOO_LARGE: {site.base}/bomb is larger than {LIMIT} bytes"
    assert site.paths().count("/bomb") == 1
    assert rise <= 2 * LIMIT, f"the server's peak memory rose {rise / MIB:.1f} MiB"


async def test_a_br_page_is_refused_unread(crawler: Crawler) -> None:
    async with serving_site() as site, httpx.AsyncClient(timeout=30) as client:
        site.encoded["/br"] = Encoded(bytes(range(256)) * 16, "br")
        job = await crawled(client, crawler.server, site.base + "/br")
    assert job["status"] == "FAILED"
    assert job["lastError"] == (
        f"INVALID: {site.base}/br is encoded as 'br'; a crawl decodes gzip and deflate"
    )


# Each within the 4 MiB limit, each measured extracting before the node bound: 0.5-1.8 GB.
HTML_BOMBS: dict[str, Callable[[], str]] = {
    "800,000 <li>x": lambda: html_pages.tiny_elements(800_000),
    "200,000 distinct links": lambda: html_pages.distinct_links(200_000),
    "1.1 million attributes": lambda: html_pages.dense_attributes(100_000),
    "580,000 comments": lambda: html_pages.comments(580_000),
}


@pytest.mark.parametrize("name", list(HTML_BOMBS))
async def test_an_html_bomb_ends_too_large_in_bounded_server_memory(
    crawler: Crawler, name: str
) -> None:
    page = HTML_BOMBS[name]().encode()
    assert len(page) <= LIMIT
    peak = PeakMemory(crawler.pid)
    async with serving_site() as site, httpx.AsyncClient(timeout=30) as client:
        # Unmeasured: the first page pays what any first extraction pays.
        await crawled(client, crawler.server, site.base + "/")
        site.encoded["/bomb"] = Encoded(gzip_of(page), "gzip")
        peak.reset()
        job = await crawled(client, crawler.server, site.base + "/bomb")
        rise = peak.rise()
    assert job["status"] == "FAILED", job
    assert job["lastError"] == (
        f"TOO_LARGE: {site.base}/bomb has more than {NODES} HTML elements and attributes"
    )
    # The body, joined, and its text: 3 pages, and the server's own churn.
    assert rise <= 4 * LIMIT, f"the server's peak memory rose {rise / MIB:.1f} MiB"


async def test_a_long_article_under_the_bound_is_indexed_as_extracted(crawler: Crawler) -> None:
    page = html_pages.long_article(1000).encode()  # 1.4 MB, 51,000 nodes
    async with serving_site() as site, httpx.AsyncClient(timeout=30) as client:
        site.encoded["/article"] = Encoded(gzip_of(page), "gzip")
        job = await crawled(client, crawler.server, site.base + "/article")
        node = await graphql(client, crawler.server, NODE, key=page_key(site.base + "/article"))
    assert job["status"] == "INDEXED" and job["progress"]["stored"] == 1, job
    local = extract_page(page, "text/html", "text/html", site.base + "/article")
    assert "after 1000 sections." in local.text and len(local.links) == 5_000
    properties = node["node"]["properties"]
    assert properties["contentHash"] == page_content_hash(local.title, local.text)
    assert len(properties["links"]) == len(local.outlinks) == 5_060
