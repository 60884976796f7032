"""The console's Search page in a real Chromium: hits with score, source and nodes, the
filters, and a hit's node opened in the graph explorer."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Browser, Page, expect

from kenning.settings import Settings
from tests.support.console_browser import (
    console_page,
    console_server,
    console_settings,
    graphql,
    screenshot,
    sign_in,
)
from tests.support.database import TEST_DATABASE
from tests.support.server_process import Server

pytestmark = pytest.mark.e2e

INGEST = """mutation I($input: IngestInput!) {
  ingest(input: $input) { __typename ... on IngestSuccess { nodes } ... on Error { message } } }"""

DOCUMENTS = [
    {
        "sourceUrn": "doc:billing-runbook",
        "kind": "runbook",
        "tags": ["billing"],
        "knowledgeType": "INSTRUCTION",
        "content": "The billing service stores invoices in postgres.\n"
        "service:billing|uses|db:postgres",
    },
    {
        "sourceUrn": "doc:search-notes",
        "kind": "note",
        "tags": ["search"],
        "content": "The search service keeps its invoices index in opensearch.\n"
        "service:search|uses|db:opensearch",
    },
]


@pytest.fixture(scope="module")
def settings(test_settings: Settings) -> Settings:
    return console_settings(test_settings, f"{TEST_DATABASE}_console_search")


@pytest.fixture(scope="module")
def server(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with console_server(settings, tmp_path_factory.mktemp("console") / "server.log") as running:
        yield running


@pytest.fixture(scope="module")
async def seeded(server: Server) -> Server:
    for document in DOCUMENTS:
        answer = await graphql(server, INGEST, input=document)
        assert answer["ingest"]["__typename"] == "IngestSuccess", answer
    return server


@pytest.fixture
async def page(browser: Browser, seeded: Server) -> AsyncIterator[Page]:
    async with console_page(browser) as opened:
        await sign_in(opened, seeded, seeded.key, route="search")
        await expect(opened.locator("#search-query")).to_be_visible()
        yield opened


async def search(page: Page, text: str, mode: str = "HYBRID") -> None:
    await page.fill("#search-query", text)
    await page.select_option("#search-mode", mode)
    await page.click("#search-run")


async def test_a_hit_shows_score_source_and_nodes_and_opens_its_node(page: Page) -> None:
    await search(page, "billing invoices postgres", "KEYWORD")
    hit = page.locator(".search-hit").first
    await expect(hit.locator(".hit-source")).to_have_text("doc:billing-runbook")
    await expect(hit.locator(".hit-score")).to_contain_text("text rank")
    await expect(hit).to_contain_text("runbook · INSTRUCTION · chunk 0")
    await expect(hit.locator(".hit-content")).to_contain_text("stores invoices in postgres")
    await expect(hit.locator(".node-link")).to_have_text(["db:postgres", "service:billing"])
    score = float((await hit.locator(".hit-score").inner_text()).split()[0])
    assert 0 < score < 1, score
    await screenshot(page, "search-hits")

    await hit.locator(".node-link", has_text="service:billing").click()
    await expect(page).to_have_url(re.compile(r"#/graph/service%3Abilling$"))
    panel = page.get_by_test_id("node-panel")
    await expect(panel.locator("h2")).to_have_text("service:billing")
    await expect(panel).to_contain_text("type service · 1 edge")
    await expect(page.get_by_test_id("graph-stats")).to_have_attribute("data-nodes", "2")
    await expect(page.get_by_test_id("graph-stats")).to_have_attribute("data-edges", "1")
    await screenshot(page, "search-opened-node")


async def test_the_filters_narrow_the_hits(page: Page) -> None:
    await search(page, "invoices", "KEYWORD")
    sources = page.locator(".search-hit .hit-source")
    await expect(sources).to_have_count(2)

    await page.click(".search-filters summary")
    await page.fill("#search-tags", "search")
    await page.click("#search-run")
    await expect(sources).to_have_text(["doc:search-notes"])

    await page.fill("#search-tags", "")
    await page.check("label:has-text('INSTRUCTION') input")
    await page.click("#search-run")
    await expect(sources).to_have_text(["doc:billing-runbook"])

    await page.fill("#search-kinds", "no-such-kind")
    await page.click("#search-run")
    await expect(page.locator(".empty")).to_have_text("No chunk matches.")


async def test_the_node_filter_keeps_the_chunks_that_name_it(page: Page) -> None:
    await search(page, "invoices", "HYBRID")
    sources = page.locator(".search-hit .hit-source")
    await expect(sources).to_have_count(2)

    await page.click(".search-filters summary")
    await page.fill("#search-entities", "db:opensearch")
    await page.click("#search-run")
    await expect(sources).to_have_text(["doc:search-notes"])

    await page.fill("#search-entities", "")
    await page.fill("#search-vector-weight", "1.5")  # outside 0..1: the server says which
    await page.click("#search-run")
    await expect(page.locator(".error")).to_contain_text("(field: vectorWeight)")


async def test_stored_markup_is_shown_as_text_never_run(page: Page, server: Server) -> None:
    markup = '<img src="x" onerror="window.kenningXss = 1"><b>zebrafish</b> markup'
    document = {"sourceUrn": "doc:markup", "kind": "note", "content": markup}
    answer = await graphql(server, INGEST, input=document)
    assert answer["ingest"]["__typename"] == "IngestSuccess", answer
    await search(page, "zebrafish markup", "KEYWORD")
    hit = page.locator(".search-hit", has_text="doc:markup")
    await expect(hit.locator(".hit-content")).to_contain_text('<img src="x" onerror=')
    await expect(hit.locator("img, b")).to_have_count(0)
    assert await page.evaluate("window.kenningXss") is None
