"""A crawl and a repository branch purged as one unit, on the real stack: ``purgeCrawl``
named with any run of a crawl removes every page any run stored (and nothing else, nor
another crawl's pages), another client's job id answers as an unknown one and a job that is
no crawl is refused naming ``jobId``; ``purgeRepository`` removes a branch's files and state
and cancels its queued job, and no source of a branch whose name merely starts the same;
``crawl`` and ``ingestRepository`` named with a connection store through it, so revoking the
connection purges what they brought in, and a crawl running then stores nothing."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.jobs import JobStatus, Lane, LeaseLostError
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.code_repo import make_code_repo
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.loopback_site import serving_site
from tests.support.queue_api import agent, close_runtime, job_status, open_runtime, request
from tests.support.repository_api import ingest_repo, run_queue
from tests.support.source_listing import (
    PURGE_CRAWL,
    PURGE_REPOSITORY,
    REVOKE,
    every_source,
    ingest,
    purged,
    register,
    urns,
)

pytestmark = pytest.mark.integration

CRAWL = """mutation C($input: CrawlInput!) { crawl(input: $input) {
  __typename ... on IngestionHandle { jobId status } ... on Error { code field message } } }"""

ACME, GLOBEX = agent("acme"), agent("globex")


@pytest.fixture
async def crawl_runtime(
    pool: asyncpg.Pool, migrated_settings: Settings, embedder: CountingEmbedder, clean: None
) -> AsyncIterator[Runtime]:
    """A runtime whose crawls may reach the loopback test site."""
    allowed = migrated_settings.model_copy(
        update={
            "crawl_allow_private": True,
            "crawl_min_interval_seconds": 0.0,
            "crawl_max_page_bytes": 100_000,
        }
    )
    runtime = await open_runtime(allowed, pool, embedder)
    yield runtime
    await close_runtime(runtime)


async def crawl(api: Api, **input: Any) -> dict[str, Any]:
    result: dict[str, Any] = (await api(CRAWL, input=input))["crawl"]
    return result


async def test_purge_crawl_removes_every_page_any_run_stored_and_nothing_else(
    crawl_runtime: Runtime,
) -> None:
    acme, globex = Api(crawl_runtime, ACME), Api(crawl_runtime, GLOBEX)
    await ingest(acme, "doc:keep", "A note the crawl never touched.")
    async with serving_site() as site:
        first = await crawl(acme, url=site.base + "/", maxDepth=3)
        other = await crawl(acme, url=site.base + "/api", maxDepth=0)
        assert await run_queue(crawl_runtime) == [JobStatus.INDEXED, JobStatus.INDEXED]
        pages = await urns(acme, urnPrefix="web:")
        again = await crawl(acme, url=site.base + "/", maxDepth=3)
        assert again["jobId"] != first["jobId"]
        assert await run_queue(crawl_runtime) == [JobStatus.INDEXED]
    assert {s["sourceKind"] for s in await every_source(acme, urnPrefix="web:")} == {"web"}
    assert f"web:{site.base}/guide" in pages and f"web:{site.base}/api" in pages

    # Another client's job id, an unknown one and a job that is no crawl: refused, nothing gone.
    hidden = await purged(globex, PURGE_CRAWL, id=first["jobId"])
    unknown = await purged(globex, PURGE_CRAWL, id="no-such-job")
    assert (hidden["__typename"], hidden["field"]) == ("NotFoundError", "jobId")
    assert hidden["message"].replace(first["jobId"], "X") == unknown["message"].replace(
        "no-such-job", "X"
    )
    queued = await request(acme, "doc:q")
    not_crawl = await purged(acme, PURGE_CRAWL, id=queued["jobId"])
    assert (not_crawl["__typename"], not_crawl["field"]) == ("ValidationError", "jobId")
    assert await urns(acme, urnPrefix="web:") == pages

    # The re-crawl stored nothing new (unchanged pages), yet naming it purges the first run's
    # pages: the crawl is the unit. The other crawl's page of /api was re-stored by the
    # first crawl's run last, so the pages left are those the other crawl wrote last.
    done = await purged(acme, PURGE_CRAWL, id=again["jobId"])
    assert done["__typename"] == "PurgeSuccess", done
    left = await urns(acme, urnPrefix="web:")
    assert done["sources"] == len(pages) - len(left) and done["sources"] >= 2
    assert f"web:{site.base}/guide" not in left
    assert await urns(acme, urnPrefix="doc:") == ["doc:keep"]
    second = await purged(acme, PURGE_CRAWL, id=other["jobId"])
    assert second["sources"] == len(left)
    assert await urns(acme, urnPrefix="web:") == []
    repeat = await purged(acme, PURGE_CRAWL, id=first["jobId"])
    assert (repeat["__typename"], repeat["sources"]) == ("PurgeSuccess", 0)
    # A crawl still queued is cancelled, and no worker runs it afterwards.
    waiting = await crawl(acme, url=site.base + "/", maxDepth=3)
    assert waiting["status"] == "QUEUED"
    stopped = await purged(acme, PURGE_CRAWL, id=waiting["jobId"])
    assert (stopped["sources"], stopped["jobsCancelled"]) == (0, 1)
    assert await run_queue(crawl_runtime) == [JobStatus.INDEXED]  # doc:q only
    cancelled = await job_status(acme, waiting["jobId"])
    assert cancelled is not None and cancelled["status"] == "CANCELLED"


async def test_a_crawl_through_a_connection_is_purged_when_the_connection_is_revoked(
    crawl_runtime: Runtime,
) -> None:
    acme, globex = Api(crawl_runtime, ACME), Api(crawl_runtime, GLOBEX)
    await register(acme, "intranet", "web")
    await register(acme, "mail", "email")
    async with serving_site() as site:
        refused = await crawl(acme, url=site.base + "/", connectionId="mail")
        assert (refused["__typename"], refused["field"]) == ("ValidationError", "sourceKind")
        foreign = await crawl(globex, url=site.base + "/", connectionId="intranet")
        assert (foreign["__typename"], foreign["field"]) == ("ValidationError", "connectionId")
        handle = await crawl(acme, url=site.base + "/", maxDepth=3, connectionId="intranet")
        assert handle["__typename"] == "IngestionHandle", handle
        # The connections' summaries, then the crawl.
        assert set(await run_queue(crawl_runtime)) == {JobStatus.INDEXED}
    stored = await every_source(acme, connectionIds=["intranet"])
    assert len(stored) >= 3 and {s["connectionId"] for s in stored} == {"intranet"}
    # Another client naming the connection sees what a connection without sources shows.
    assert await every_source(globex, connectionIds=["intranet"]) == []
    revoked = await acme(REVOKE, id="intranet")
    assert revoked["revokeConnection"]["purged"]["sources"] == len(stored)
    assert await urns(acme, urnPrefix="web:") == []


async def test_purge_repository_removes_one_branch_and_cancels_its_queued_job(
    repo_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    api = Api(repo_runtime, ACME)
    await register(api, "git", "code")
    handle = await ingest_repo(api, path=str(repo.root), connectionId="git")
    assert handle["__typename"] == "IngestionHandle", handle
    assert set(await run_queue(repo_runtime)) == {JobStatus.INDEXED}
    await ingest(api, "code:shop@mainline:notes", "Another branch whose name starts the same.")
    branch = await every_source(api, urnPrefix="code:shop@main")
    ours = [s for s in branch if s["sourceUrn"] != "code:shop@mainline:notes"]
    assert "code:shop@main" in {s["sourceUrn"] for s in ours} and len(ours) > 3
    assert {s["connectionId"] for s in ours} == {"git"}
    assert {s["sourceKind"] for s in ours if s["sourceUrn"] != "code:shop@main"} == {"code"}

    for name, branch_name, field in (("../shop", "main", "name"), ("shop", "a..b", "branch")):
        bad = await purged(api, PURGE_REPOSITORY, name=name, branch=branch_name)
        assert (bad["__typename"], bad["field"]) == ("ValidationError", field)
    foreign = await purged(Api(repo_runtime, GLOBEX), PURGE_REPOSITORY, name="shop", branch="main")
    assert (foreign["__typename"], foreign["sources"]) == ("PurgeSuccess", 0)

    done = await purged(api, PURGE_REPOSITORY, name="shop", branch="main")
    assert (done["__typename"], done["sources"]) == ("PurgeSuccess", len(ours))
    assert await urns(api, urnPrefix="code:") == ["code:shop@mainline:notes"]

    queued = await ingest_repo(api, path=str(repo.root))
    assert queued["status"] == "QUEUED"
    cancelled = await purged(api, PURGE_REPOSITORY, name="shop", branch="main")
    assert (cancelled["sources"], cancelled["jobsCancelled"]) == (0, 1)
    assert await run_queue(repo_runtime) == []


async def test_a_crawl_running_when_its_connection_is_revoked_stores_nothing(
    crawl_runtime: Runtime,
) -> None:
    acme = Api(crawl_runtime, ACME)
    await register(acme, "intranet", "web")
    await run_queue(crawl_runtime)  # the connection's summary
    async with serving_site() as site:
        handle = await crawl(acme, url=site.base + "/", maxDepth=3, connectionId="intranet")
        claimed = await crawl_runtime.queue.work.claim(Lane.BULK, "test/revoked", 60)
        assert claimed is not None and claimed.job.id == handle["jobId"]
        assert claimed.job.connection_id == "intranet"
        # Revoked in the registry alone, as between revokeConnection's cancel and its purge:
        # the job still holds its lease, and each write of it checks the connection.
        await crawl_runtime.queue.connections.revoke("acme", "intranet", "test")
        with contextlib.suppress(LeaseLostError, ConnectionRevokedError):
            await run_job(claimed, crawl_runtime.queue.work, crawl_runtime.job_deps())
    assert await urns(acme, urnPrefix="web:") == []
    ended = await job_status(acme, handle["jobId"])
    assert ended is not None and ended["status"] != "INDEXED", ended
