"""The crawl mutation end to end on the real stack against a site on loopback: the spec
checked at once (through variables), a job in the bulk lane run by the registered runner,
pages searchable as ``web:<url>`` sources with ``links_to`` evidence, a re-crawl that sends
validators and stores nothing, progress on the job, the SSRF refusal, another tenant blind,
and each page observed at its Last-Modified (else when stored)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.domain.sources.crawl import page_key
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.loopback_site import serving_site
from tests.support.queue_api import agent, close_runtime, open_runtime, subscribe, wait_for

pytestmark = pytest.mark.integration

CRAWL = """mutation C($input: CrawlInput!) { crawl(input: $input) {
  __typename ... on IngestionHandle { jobId status position }
  ... on Error { code field message } } }"""
STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) {
  status lane priority lastError sourceKind sourceId
  progress { fetched unchanged skipped failed queued stored } } }"""
SEARCH = """query S($q: String!) { search(query: $q, mode: KEYWORD) {
  ... on SearchSuccess { hits { sourceUrn kind } } } }"""
NEIGHBORS = """query N($key: String!) { node(key: $key) {
  key edges(direction: OUT) { edgeType toKey evidence { sourceUrn content } } } }"""

OBSERVED = """query O($kind: String!, $key: String!) {
  chunksByKind(kind: $kind, limit: 50) { sourceUrn observedAt }
  node(key: $key) { edges(direction: OUT) { edgeType toKey validFrom } } }"""

LIVE = """subscription($id: ID!) { ingestionProgress(jobId: $id) {
  status progress { fetched stored queued } } }"""

ACME, GLOBEX = agent("acme"), agent("globex")


@asynccontextmanager
async def allowing_private(
    pool: asyncpg.Pool, settings: Settings, embedder: CountingEmbedder, interval: float = 0.0
) -> AsyncIterator[Runtime]:
    """A runtime whose crawls may reach loopback (the test site), ``interval`` s per host."""
    allowed = settings.model_copy(
        update={"crawl_allow_private": True, "crawl_min_interval_seconds": interval,
                "crawl_max_page_bytes": 100_000}
    )  # fmt: skip
    runtime = await open_runtime(allowed, pool, embedder)
    try:
        yield runtime
    finally:
        await close_runtime(runtime)


@pytest.fixture
async def crawl_runtime(
    pool: asyncpg.Pool, migrated_settings: Settings, embedder: CountingEmbedder, clean: None
) -> AsyncIterator[Runtime]:
    async with allowing_private(pool, migrated_settings, embedder) as runtime:
        yield runtime


async def crawl(api: Api, **input: Any) -> dict[str, Any]:
    result: dict[str, Any] = (await api(CRAWL, input=input))["crawl"]
    return result


async def run_queue(runtime: Runtime) -> list[JobStatus | None]:
    """Run every due bulk job once, as a worker of the bulk lane would."""
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/crawl", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran


async def status(api: Api, job_id: str) -> dict[str, Any] | None:
    job: dict[str, Any] | None = (await api(STATUS, id=job_id))["ingestionStatus"]
    return job


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"url": "ftp://example.com/"}, "url"),
        ({"maxDepth": 99}, "maxDepth"),
        ({"maxPages": 0}, "maxPages"),
        ({"include": ["/guide/*", " "]}, "include[1]"),
        ({"recrawlAfter": -5}, "recrawlAfter"),
        ({"priority": 1}, "priority"),
    ],
)
async def test_a_bad_spec_is_refused_at_once_naming_the_field_and_queues_nothing(
    api: Api, pool: asyncpg.Pool, change: dict[str, Any], field: str
) -> None:
    refused = await crawl(api.as_(ACME), **{"url": "https://docs.example.com/", **change})
    assert refused["__typename"] == "ValidationError"
    assert refused["field"] == field
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


async def test_a_site_becomes_searchable_linked_pages_and_a_recrawl_stores_nothing(
    crawl_runtime: Runtime, embedder: CountingEmbedder
) -> None:
    acme, globex = Api(crawl_runtime, ACME), Api(crawl_runtime, GLOBEX)
    async with serving_site() as site:
        start = site.base + "/"
        first = await crawl(acme, url=start, maxDepth=3)
        again = await crawl(acme, url=start, maxDepth=3)
        assert first["status"] == "QUEUED" and first["position"] == 1
        assert (again["status"], again["jobId"]) == ("DUPLICATE", first["jobId"])
        assert await run_queue(crawl_runtime) == [JobStatus.INDEXED]
        done = await status(acme, first["jobId"])
        assert done is not None and done["status"] == "INDEXED" and done["lane"] == "BULK"
        assert (done["sourceKind"], done["sourceId"]) == ("crawl", start)
        assert done["progress"] == {"fetched": 3, "unchanged": 0, "skipped": 1, "failed": 1,
                                    "queued": 0, "stored": 3}  # fmt: skip
        embedded = embedder.texts

        hits = (await acme(SEARCH, q="reference"))["search"]["hits"]
        assert {"sourceUrn": f"web:{site.base}/guide", "kind": "web_page"} in hits
        guide = (await acme(NEIGHBORS, key=page_key(site.base + "/guide")))["node"]
        links = {e["toKey"]: e["evidence"] for e in guide["edges"] if e["edgeType"] == "links_to"}
        evidence = links[page_key(site.base + "/api")]
        assert evidence[0]["sourceUrn"] == f"web:{site.base}/guide"
        assert "API reference" in evidence[0]["content"]

        # Another tenant sees neither the pages, nor the job, nor its progress.
        assert (await globex(SEARCH, q="reference"))["search"]["hits"] == []
        assert (await globex(NEIGHBORS, key=page_key(site.base + "/guide")))["node"] is None
        assert await status(globex, first["jobId"]) is None

        site.requests.clear()
        second = await crawl(acme, url=start, maxDepth=3)
        assert second["status"] == "QUEUED" and second["jobId"] != first["jobId"]
        assert await run_queue(crawl_runtime) == [JobStatus.INDEXED]
        pages = [(p, h) for p, h in site.requests if p in ("/", "/guide", "/api")]
        assert len(pages) == 3 and all("if-none-match" in h for _, h in pages)
        recrawled = await status(acme, second["jobId"])
        assert recrawled is not None and recrawled["progress"]["unchanged"] == 3
        assert recrawled["progress"]["stored"] == 0 and recrawled["progress"]["fetched"] == 0
        assert embedder.texts == embedded


async def test_without_allow_private_the_job_fails_with_the_ssrf_reason(
    runtime: Runtime, pool: asyncpg.Pool
) -> None:
    assert runtime.settings.crawl_allow_private is False
    acme = Api(runtime, ACME)
    async with serving_site() as site:
        handle = await crawl(acme, url=site.base + "/")
        assert await run_queue(runtime) == [JobStatus.FAILED]
        assert site.requests == []
    failed = await status(acme, handle["jobId"])
    assert failed is not None and failed["status"] == "FAILED"
    assert (
        "127.0.0.2" in failed["lastError"]
        and "KENNING_CRAWL_ALLOW_PRIVATE" in (failed["lastError"])
    )
    assert await pool.fetchval("SELECT count(*) FROM sources") == 0


async def test_progress_reaches_a_subscriber_while_the_crawl_runs(
    pool: asyncpg.Pool, migrated_settings: Settings, embedder: CountingEmbedder, clean: None
) -> None:
    # Half a second between requests to the site: the crawl lasts long enough to be seen.
    async with (
        allowing_private(pool, migrated_settings, embedder, interval=0.5) as runtime,
        serving_site() as site,
    ):
        acme = Api(runtime, ACME)
        handle = await crawl(acme, url=site.base + "/", maxDepth=3)
        seen: list[dict[str, Any]] = []

        async def follow() -> None:
            async for data in subscribe(acme, LIVE, id=handle["jobId"]):
                seen.append(data["ingestionProgress"])

        watching = asyncio.create_task(follow())
        await wait_for(lambda: asyncio.sleep(0, bool(seen)))
        assert await run_queue(runtime) == [JobStatus.INDEXED]
        await asyncio.wait_for(watching, 20)
    live = [u["progress"] for u in seen if u["status"] == "RUNNING" and u["progress"]]
    assert live, seen
    assert live[0]["stored"] < 3 or live[0]["queued"] > 0
    assert seen[-1] == {"status": "INDEXED",
                        "progress": {"fetched": 3, "stored": 3, "queued": 0}}  # fmt: skip


async def test_a_page_is_observed_at_its_last_modified_else_when_stored(
    crawl_runtime: Runtime,
) -> None:
    acme = Api(crawl_runtime, ACME)
    async with serving_site() as site:
        # The welcome page says when it changed; the guide's date is unreadable (ignored, not
        # a failure), the API page has none.
        site.last_modified.update({"/": "Tue, 04 Jun 2024 12:00:00 GMT", "/guide": "soon",
                                   "/api": None})  # fmt: skip
        await crawl(acme, url=site.base + "/", maxDepth=3)
        assert await run_queue(crawl_runtime) == [JobStatus.INDEXED]
        found = await acme(OBSERVED, kind="web_page", key=page_key(site.base + "/"))
    observed = {c["sourceUrn"]: datetime.fromisoformat(c["observedAt"])
                for c in found["chunksByKind"]}  # fmt: skip
    modified = datetime(2024, 6, 4, 12, tzinfo=UTC)
    assert observed[f"web:{site.base}/"] == modified
    recently = datetime.now(UTC) - timedelta(minutes=1)
    assert observed[f"web:{site.base}/guide"] > recently
    assert observed[f"web:{site.base}/api"] > recently
    links = [(e["toKey"], e["validFrom"]) for e in found["node"]["edges"]]
    assert links == [(page_key(site.base + "/guide"), modified.isoformat())]
