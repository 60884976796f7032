"""Pure crawl rules: URL normalisation, the frontier, the spec's checks and scope, and the
page's GraphRequest (keys accepted by node_keys, edges citing the linking chunk)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.graph_items import check_items
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.sources.crawl import (
    FetchedPage,
    Frontier,
    Link,
    crawl_spec,
    normalise_url,
    page_graph,
    page_key,
    page_properties,
    previous_page,
    resolve_link,
)


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("HTTP://Docs.Example.COM:80/a?b=1&a=2#top", "http://docs.example.com/a?b=1&a=2"),
        ("https://x.test:443", "https://x.test/"),
        ("https://x.test:8443/A/", "https://x.test:8443/A/"),
        ("http://[::1]:80/x", "http://[::1]/x"),
    ],
)
def test_normalising_strips_only_fragment_default_port_and_case(raw: str, normal: str) -> None:
    assert normalise_url(raw) == normal
    assert normalise_url(normal) == normal


@pytest.mark.parametrize(
    "raw",
    ["", "ftp://x.test/", "file:///etc/passwd", "http://", "http://u:p@x.test/", "http://x .test/"],
)
def test_bad_urls_name_the_field(raw: str) -> None:
    with pytest.raises(ValidationError) as bad:
        normalise_url(raw, field="url")
    assert bad.value.field == "url"


def test_links_resolve_against_the_page() -> None:
    assert resolve_link("http://x.test/docs/a", "b#f") == "http://x.test/docs/b"
    assert resolve_link("http://x.test/docs/a", "mailto:me@x.test") is None
    assert resolve_link("http://x.test/", "javascript:void(0)") is None


def test_frontier_is_breadth_first_and_dedupes() -> None:
    frontier = Frontier(max_depth=1)
    assert frontier.add("http://x.test/", 0)
    assert not frontier.add("http://x.test/", 1)
    assert frontier.add("http://x.test/b", 1) and frontier.add("http://x.test/c", 1)
    assert not frontier.add("http://x.test/d", 2)
    assert [v.url for v in frontier.take(5)] == ["http://x.test/", "http://x.test/b",
                                                 "http://x.test/c"]  # fmt: skip
    assert len(frontier) == 0 and frontier.seen("http://x.test/b")


def test_spec_checks_name_the_field() -> None:
    cases = [
        ({"max_depth": -1}, "maxDepth"), ({"max_pages": 0}, "maxPages"),
        ({"include": ["ok", " "]}, "include[1]"), ({"exclude": ["a b"]}, "exclude[0]"),
        ({"recrawl_after": timedelta(seconds=-1)}, "recrawlAfter"),
    ]  # fmt: skip
    for options, field in cases:
        with pytest.raises(ValidationError) as bad:
            crawl_spec("https://x.test/", **options)  # type: ignore[arg-type]
        assert bad.value.field == field
    with pytest.raises(TooLargeError):
        crawl_spec("https://x.test/", max_pages=1_000_000)


def test_include_exclude_and_same_site() -> None:
    spec = crawl_spec("https://docs.x.test/", include=("/guide/*",), exclude=("*.zip",))
    assert spec.allows("https://docs.x.test/")  # the start URL always
    assert spec.allows("https://docs.x.test/guide/a")
    assert spec.allows("https://api.docs.x.test/guide/a")
    assert not spec.allows("https://docs.x.test/blog/a")
    assert not spec.allows("https://docs.x.test/guide/a.zip")
    assert not spec.allows("https://x.test/guide/a")
    assert crawl_spec("https://docs.x.test/", same_site=False).allows("https://other.test/")


def _page(url: str, text: str, links: tuple[Link, ...]) -> FetchedPage:
    return FetchedPage(url, url, "T", text, links, tuple(x.url for x in links), "h",
                       datetime.now(UTC), '"e1"', "Wed, 01 Jan 2025 00:00:00 GMT")  # fmt: skip


def test_page_graph_cites_the_chunk_holding_each_link() -> None:
    first = "Intro. " * 40 + "See the guide here."
    second = "Then the API reference is next."
    text = first + "\n\n" + second
    links = (
        Link("https://x.test/guide", "guide", first.index("guide"), first.index("guide") + 5),
        Link("https://x.test/api", "API", len(first) + 2 + second.index("API"), 0),
        Link("https://x.test/nowhere", "nowhere", 0, 7),
    )
    page = _page("https://x.test/", text, links)
    crawled = {u: u for u in ("https://x.test/", "https://x.test/guide", "https://x.test/api")}
    request = page_graph(page, Scope("acme"), crawled, chunk_limit=300)
    assert request.source_urn == "web:https://x.test/" and len(request.pieces) == 2
    edges = {e.to_key: e.evidence_chunk_ids for e in request.edges}
    assert edges == {"web:x.test/guide": ("c0",), "web:x.test/api": ("c1",)}
    items = check_items(request, SecretPolicy.REJECT)
    assert not items.rejected and len(items.edges) == 2


def test_page_keys_are_canonical_and_distinct() -> None:
    plain = page_key("https://docs.x.test/guide/")
    assert plain == "web:docs.x.test/guide/" and parse_key(plain).key == plain
    query_a, query_b = page_key("https://x.test/a?b=1"), page_key("https://x.test/a?b-1")
    assert query_a != query_b and parse_key(query_a).key == query_a
    assert page_key("http://127.0.0.2:8080/a") == "web:127.0.0.2_8080/a"


def test_previous_page_reads_back_the_node_properties() -> None:
    page = _page("https://x.test/", "Hello.", (Link("https://x.test/b", "b", 0, 1),))
    kept = previous_page(page_properties(page), page.fetched_at)
    assert kept is not None and kept.validators == page.validators
    assert kept.links == ("https://x.test/b",) and kept.content_hash == page.content_hash
