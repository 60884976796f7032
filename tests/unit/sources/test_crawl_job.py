"""A crawl as a queued job, over fakes: the payload's round trip, the identity (same spec,
same job; another spec, another), the bulk-lane priority, and what a re-crawl reads back
from stored page nodes (through kept links, within scope and depth, at the reader's scope)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.queue.payload import task_of, task_payload
from kenning.domain.sources.crawl import crawl_spec, page_key
from kenning.domain.sources.crawl.crawl_job import (
    CRAWL_TASK,
    crawl_body,
    crawl_identity,
    crawl_priority,
    recrawl_after,
    spec_from_payload,
)
from kenning.domain.sources.crawl.crawl_run import previous_pages
from tests.fakes.graph_reader import FakeGraph

SITE = "https://docs.example.com"
WHEN = datetime(2026, 11, 1, tzinfo=UTC)


def test_the_payload_gives_back_the_spec() -> None:
    spec = crawl_spec(SITE + "/", max_depth=3, max_pages=40, include=["/guide/*"],
                      exclude=["*.zip"], recrawl_after=timedelta(hours=6))  # fmt: skip
    payload = task_payload(CRAWL_TASK, {"crawl": crawl_body(spec)})
    assert task_of(payload) == "crawl"
    assert spec_from_payload(payload) == spec


def test_the_identity_is_the_spec() -> None:
    one, same = crawl_spec(SITE + "/"), crawl_spec(SITE)
    other = crawl_spec(SITE + "/", max_depth=3)
    assert crawl_identity(one).key == crawl_identity(same).key
    assert crawl_identity(one).key != crawl_identity(other).key
    assert crawl_identity(one).source_key == crawl_identity(other).source_key


@pytest.mark.parametrize("bad", [0, 2, 10, True])
def test_a_crawl_waits_in_the_bulk_lane(bad: int) -> None:
    assert crawl_priority(None) == 6 and crawl_priority(3) == 3
    with pytest.raises(ValidationError) as refused:
        crawl_priority(bad)
    assert refused.value.field == "priority"


def test_recrawl_after_is_seconds_within_bounds() -> None:
    assert recrawl_after(90) == timedelta(seconds=90) and recrawl_after(None) is None
    for bad in (-1, 10**12):
        with pytest.raises(ValidationError) as refused:
            recrawl_after(bad)
        assert refused.value.field == "recrawlAfter"


def stored(graph: FakeGraph, path: str, links: list[str], scope: Scope, etag: str = "") -> None:
    graph.add_node(
        page_key(SITE + path), scope, url=SITE + path, contentHash=f"h{path}",
        links=[SITE + link for link in links], fetchedAt=WHEN.isoformat(),
        **({"etag": etag} if etag else {}),
    )  # fmt: skip


async def test_previous_pages_follow_the_kept_links_at_the_readers_scope() -> None:
    acme, globex = Scope("acme"), Scope("globex")
    graph = FakeGraph()
    stored(graph, "/", ["/guide", "/blog/1"], acme, etag='"e1"')
    stored(graph, "/guide", ["/api"], acme)
    stored(graph, "/api", ["/deep"], acme)
    stored(graph, "/deep", [], acme)
    stored(graph, "/blog/1", [], acme)
    stored(graph, "/secret", [], globex)
    spec = crawl_spec(SITE + "/", max_depth=2, exclude=["/blog/*"])
    kept = await previous_pages(spec, graph, acme)
    assert set(kept) == {SITE + "/", SITE + "/guide", SITE + "/api"}
    home = kept[SITE + "/"]
    assert home.etag == '"e1"' and home.fetched_at == WHEN and home.content_hash == "h/"
    assert await previous_pages(crawl_spec(SITE + "/"), graph, globex) == {}
