"""The console in a real Chromium: signing in, what each role sees, the Router page, and
how fast it loads and how big its bundle is (printed: the issue reports both)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.async_api import Page, expect

from kenning.console._bundle import load_bundle
from kenning.domain.access.principal import Role
from kenning.settings import Settings
from tests.support.browser_traffic import Traffic
from tests.support.console_browser import (
    console_server,
    console_settings,
    key_for,
    queue_document,
    screenshot,
    sign_in,
)
from tests.support.database import TEST_DATABASE
from tests.support.server_process import Server

pytestmark = pytest.mark.e2e

FIRST_LOAD_GOAL = 1.0  # seconds, loopback
BUNDLE_GOAL = 400 * 1024  # bytes of JavaScript, gzipped


@pytest.fixture(scope="module")
def settings(test_settings: Settings) -> Settings:
    return console_settings(test_settings, f"{TEST_DATABASE}_console_pages")


@pytest.fixture(scope="module")
def server(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with console_server(settings, tmp_path_factory.mktemp("console") / "server.log") as running:
        yield running


async def test_a_wrong_key_is_refused_a_right_one_signs_in_and_out(
    page: Page, server: Server
) -> None:
    traffic = Traffic()
    traffic.watch(page)
    await page.goto(f"{server.url}/console")
    await page.fill("#api-key", "kn_not-a-real-key")
    await page.click("button[type=submit]")
    await expect(page.get_by_role("alert")).to_contain_text("That key was not accepted")
    assert await page.evaluate("Object.keys(sessionStorage).length") == 0

    await page.fill("#api-key", server.key)
    await page.click("button[type=submit]")
    await expect(page.get_by_test_id("role")).to_have_text("admin")
    await expect(page.get_by_test_id("counts")).to_be_visible()
    # The key survives a reload of the tab, not the tab: sessionStorage only.
    await page.reload()
    await expect(page.get_by_test_id("role")).to_have_text("admin")
    assert await page.evaluate("Object.keys(localStorage).length") == 0
    await screenshot(page, "signed-in")
    await page.get_by_role("button", name="Sign out").click()
    await expect(page.locator("#api-key")).to_be_visible()
    assert await page.evaluate("Object.keys(sessionStorage).length") == 0
    assert traffic.foreign_hosts() == set()


async def test_a_ui_key_sees_no_write_controls(
    page: Page, server: Server, settings: Settings
) -> None:
    job = await queue_document(server, "console://roles/1")
    await sign_in(page, server, await key_for(settings, Role.UI))
    await expect(page.get_by_test_id("role")).to_have_text("ui")
    row = page.get_by_test_id("lane-BULK").locator(f"tr[data-job='{job}']")
    await expect(row).to_be_visible()
    await expect(page.get_by_role("button", name="Prioritize")).to_have_count(0)
    await expect(page.get_by_role("button", name="Cancel")).to_have_count(0)
    await expect(page.get_by_role("button", name="Move")).to_have_count(0)
    nav = page.locator("header nav")
    await expect(nav.get_by_role("link", name="Queue")).to_be_visible()
    await expect(nav.get_by_role("link", name="Ingest")).to_have_count(0)
    await screenshot(page, "ui-key")
    await page.goto(f"{server.url}/console/#/jobs/{job}")
    await expect(page.locator("[data-field=status]")).to_have_text("QUEUED")
    await expect(page.get_by_role("button")).to_have_count(1)  # Sign out only

    await page.get_by_role("button", name="Sign out").click()
    await sign_in(page, server, await key_for(settings, Role.AGENT))
    await expect(page.get_by_test_id("role")).to_have_text("agent")
    await expect(page.get_by_role("button", name="Cancel").first).to_be_visible()
    await expect(page.locator("header nav").get_by_role("link", name="Ingest")).to_be_visible()


async def test_the_router_page_shows_the_demo_backends_and_live_events(
    page: Page, server: Server
) -> None:
    await sign_in(page, server, server.key, route="router")
    # The demo backends hold the structure and extraction models; no vision model is set.
    models = page.get_by_test_id("models")
    await expect(models.locator("tr[data-role=structure]")).to_contain_text("ok")
    await expect(models.locator("tr[data-role=vision]")).to_contain_text(
        "not configured" + "no model is set: set KENNING_MODEL_VISION"
    )
    backends = page.get_by_test_id("backends")
    await expect(backends.locator("tr[data-backend]").first).to_be_visible()
    assert await backends.locator("tr[data-backend]").count() >= 1
    await expect(backends).to_contain_text("healthy")
    await expect(page.get_by_test_id("model-sets")).to_contain_text("Orchestrator set:")
    # An agent's announcement shows in the live stream and as a lease.
    await expect(page.get_by_test_id("events")).to_be_visible()
    await page.wait_for_timeout(300)  # the routerEvents subscription is open by now
    async with httpx.AsyncClient(timeout=30) as client:
        answer = await client.post(
            f"{server.url}/router/announce", json={"session": "console-e2e"}, headers=server.headers
        )
    assert answer.status_code < 300, answer.text
    await expect(page.get_by_test_id("events")).to_contain_text("announce", timeout=5_000)
    # A client admin sees the lease, not the session's name (only global admins do).
    await expect(page.get_by_test_id("leases")).to_contain_text("expires in", timeout=5_000)
    await screenshot(page, "router")


async def test_first_load_time_and_bundle_size(
    page: Page, server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = load_bundle()
    assert bundle is not None
    js_gzipped = (bundle.directory / f"{bundle.js}.gz").stat().st_size
    css_gzipped = (bundle.directory / f"{bundle.css}.gz").stat().st_size
    started = time.monotonic()
    await page.goto(f"{server.url}/console/")
    await expect(page.locator("#api-key")).to_be_visible()
    first_load = time.monotonic() - started
    started = time.monotonic()
    await page.fill("#api-key", server.key)
    await page.click("button[type=submit]")
    await expect(page.locator("[data-testid=counts] tr[data-lane=BULK]")).to_be_visible()
    to_live_queue = time.monotonic() - started
    with capsys.disabled():
        print(
            f"\nconsole first load {first_load * 1000:.0f} ms (sign-in form shown), "
            f"sign-in to live queue {to_live_queue * 1000:.0f} ms; bundle "
            f"{js_gzipped / 1024:.1f} KiB JS + {css_gzipped / 1024:.1f} KiB CSS gzipped"
        )
    assert first_load < FIRST_LOAD_GOAL
    assert js_gzipped <= BUNDLE_GOAL
