"""``kenning crawl``'s functions against the real app over HTTP (ASGI), its queue worker
running the job: a loopback site crawled with the counts printed as they change, a bad
option refused naming the field, and the SSRF refusal failing the run with its reason."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
import typer
from kenning_client import AsyncKenningClient, async_client_over

from kenning.cli.crawl import crawl_input, crawl_site, describe
from kenning.settings import Settings
from tests.support.file_uploads import Uploads, running_uploads
from tests.support.loopback_site import serving_site

pytestmark = pytest.mark.integration


@pytest.fixture
async def server(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> AsyncIterator[Uploads]:
    allowed = migrated_settings.model_copy(
        update={"crawl_allow_private": True, "crawl_min_interval_seconds": 0.0,
                "crawl_max_page_bytes": 100_000}
    )  # fmt: skip
    async with running_uploads(allowed, pool) as running:
        running.http.headers.update(running.auth("acme"))
        yield running


def kenning(running: Uploads) -> AsyncKenningClient:
    """kenning-client over the app's HTTP client (its key already set)."""
    return async_client_over(running.http)


def options(url: str, **changes: object) -> dict[str, object]:
    return {**crawl_input(url, 3, 20, True, [], [], None, None), **changes}


async def test_a_site_is_crawled_and_its_counts_printed(server: Uploads) -> None:
    printed: list[str] = []
    async with serving_site() as site:
        run = await crawl_site(
            kenning(server), options(site.base + "/"), lambda p: printed.append(describe(p)),
            every=0.05, within=60,
        )  # fmt: skip
    assert (run.status, run.failed, run.error) == ("INDEXED", False, None)
    assert run.progress == {"fetched": 3, "unchanged": 0, "skipped": 1, "failed": 1,
                            "queued": 0, "stored": 3}  # fmt: skip
    assert printed[-1] == "fetched 3 · unchanged 0 · skipped 1 · failed 1 · queued 0 · stored 3"
    hits = await server.graphql(
        '{ search(query: "reference", mode: KEYWORD) { ... on SearchSuccess { hits { sourceUrn } } } }'  # noqa: E501
    )
    assert {"sourceUrn": f"web:{site.base}/guide"} in hits["search"]["hits"]


async def test_a_bad_option_is_refused_naming_the_field(server: Uploads) -> None:
    with pytest.raises(typer.BadParameter, match="maxPages"):
        await crawl_site(kenning(server), options("https://docs.example.com/", maxPages=0))


async def test_a_private_address_fails_the_run_with_the_ssrf_reason(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> None:
    async with running_uploads(migrated_settings, pool) as running, serving_site() as site:
        running.http.headers.update(running.auth("acme"))
        run = await crawl_site(kenning(running), options(site.base + "/"), every=0.05, within=60)
    assert run.failed and run.status == "FAILED"
    assert run.error is not None and "KENNING_CRAWL_ALLOW_PRIVATE" in run.error


async def test_a_project_given_alone_is_stored_under_the_keys_client(
    pool: asyncpg.Pool, server: Uploads
) -> None:
    run = await crawl_site(
        kenning(server), options("https://docs.example.com/", scope={"projectId": "docs"}),
        every=0.05, within=60,
    )  # fmt: skip
    row = await pool.fetchrow(
        "SELECT client_id, project_id FROM ingestion_jobs WHERE id = $1", run.job_id
    )
    assert row is not None and tuple(row) == ("acme", "docs")
