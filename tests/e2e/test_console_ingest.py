"""The console's Ingest page in a real Chromium: a pasted document is indexed and its new
edges shown (each opens in the graph), free text is structured as a dry run, and a ui key
gets no form."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import Page, expect

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.console_browser import (
    console_server,
    console_settings,
    screenshot,
    sign_in,
)
from tests.support.database import TEST_DATABASE
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

DOCUMENT = """Checkout publishes every order to the orders queue.
service:checkout|publishes_to|queue:orders
"""


@pytest.fixture(scope="module")
def settings(test_settings: Settings) -> Settings:
    return console_settings(test_settings, f"{TEST_DATABASE}_console_ingest")


@pytest.fixture(scope="module")
def server(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with console_server(settings, tmp_path_factory.mktemp("console") / "server.log") as running:
        yield running


async def signed_in(page: Page, server: Server, settings: Settings, role: Role) -> None:
    key = await create_key(settings, Scope("acme"), role)
    await sign_in(page, server, key, route="ingest")


async def test_an_ingested_document_shows_its_new_edges(
    page: Page, server: Server, settings: Settings
) -> None:
    await signed_in(page, server, settings, Role.AGENT)
    await page.fill("#ingest-urn", "doc:checkout")
    await page.fill("#ingest-content", DOCUMENT)
    await page.fill("#ingest-relationships", "service:checkout -> reads_from -> db:carts")
    await page.click("#ingest-run")
    result = page.get_by_test_id("ingest-result")
    await expect(result.get_by_test_id("ingest-status")).to_have_text("INDEXED")
    await expect(result).to_contain_text("1 chunk · 3 nodes")
    edges = result.get_by_test_id("ingest-edges").locator("li")
    await expect(edges).to_have_text(
        [
            "service:checkout -[publishes_to]-> queue:orders",
            "service:checkout -[reads_from]-> db:carts",
        ],
        use_inner_text=True,
    )
    await screenshot(page, "ingest-edges")

    await edges.nth(1).get_by_role("link", name="db:carts").click()
    await expect(page).to_have_url(re.compile(r"#/graph/db%3Acarts$"))
    await expect(page.get_by_test_id("node-panel").locator("h2")).to_have_text("db:carts")
    await expect(page.get_by_test_id("graph-stats")).to_have_attribute("data-nodes", "2")


async def test_a_duplicate_is_said_so_and_a_bad_document_refused_naming_the_field(
    page: Page, server: Server, settings: Settings
) -> None:
    await signed_in(page, server, settings, Role.AGENT)
    await page.fill("#ingest-urn", "doc:twice")
    await page.fill("#ingest-content", "The same words, twice.")
    status = page.get_by_test_id("ingest-status")
    await page.click("#ingest-run")
    await expect(status).to_have_text("INDEXED")
    await page.click("#ingest-run")
    await expect(status).to_have_text("SKIPPED_DUPLICATE")

    await page.fill("#ingest-urn", "doc:bad")
    await page.fill("#ingest-kind", "Not A Kind!")
    await page.fill("#ingest-content", "Some text.")
    await page.click("#ingest-run")
    await expect(page.locator(".ingest-form .error")).to_contain_text("(field: kind)")


async def test_free_text_is_structured_as_a_dry_run(
    page: Page, server: Server, settings: Settings
) -> None:
    await signed_in(page, server, settings, Role.AGENT)
    await page.fill("#structure-text", "Alice leads the payments team, which owns billing.")
    await expect(page.locator("#structure-dry-run")).to_be_checked()
    await page.click("#structure-run")
    result = page.get_by_test_id("structure-result")
    await expect(result.get_by_test_id("structure-status")).to_have_text("DRY_RUN", timeout=30_000)
    await expect(result).to_contain_text("as structured:")
    await expect(result).to_contain_text("Edges it would store")
    await screenshot(page, "ingest-structured")


async def test_a_ui_key_gets_no_ingest_form(page: Page, server: Server, settings: Settings) -> None:
    await signed_in(page, server, settings, Role.UI)
    await expect(page.get_by_test_id("ingest-read-only")).to_be_visible()
    await expect(page.locator("#ingest-run")).to_have_count(0)
    await expect(page.locator("#structure-run")).to_have_count(0)
