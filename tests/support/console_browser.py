"""The web console in a real Chromium: a server with the demo router, a browser, signing in.

Shared by the console's browser tests (``tests/e2e/test_console_*.py``). Drives Debian's
``/usr/bin/chromium`` with Playwright, never ``playwright install``. The server runs without
queue workers (jobs stay queued until a test starts ``worker_server``) and over its own
database, so no other test server's workers take its jobs.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, async_playwright, expect

from kenning.console._bundle import load_bundle
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import DemoBackends, DemoConfig
from kenning.settings import Settings
from kenning.storage.db.database_url import with_database
from kenning.storage.db.migrate import run_upgrade
from tests.support.database import TEST_DATABASE, recreate_database
from tests.support.server_process import Server, create_key, free_port, start_server, stop_server

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium calls Google's hosts at every start.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CONSOLE_DATABASE = f"{TEST_DATABASE}_console"


def console_settings(test_settings: Settings, database: str = CONSOLE_DATABASE) -> Settings:
    """Settings over a fresh, migrated database of the console tests' own, named after the
    session's test database (``KENNING_TEST_DATABASE``) so parallel runs never share one."""
    if not database.startswith(f"{TEST_DATABASE}_"):
        raise ValueError(f"{database!r}: a console test database is named {TEST_DATABASE}_<name>")
    url = with_database(test_settings.database_url, database)
    asyncio.run(recreate_database(url, database))
    settings = test_settings.model_copy(update={"database_url": url})
    run_upgrade(settings, "head")
    return settings


@contextmanager
def console_server(settings: Settings, log: Path) -> Iterator[Server]:
    """A server with the router over the demo backends and no queue workers (admin key)."""
    if load_bundle() is None:
        raise RuntimeError("the console is not built: run scripts/install.sh")
    demo = DemoBackends(DemoConfig(gpu_port=free_port(), cpu_port=free_port(), load_time=0.05))
    demo.start()
    router = {k: v for k, v in demo.environment().items() if k.startswith("KENNING_ROUTER_")}
    router["KENNING_ROUTER_STATE_PREFIX"] = f"kenning:router:console:{uuid.uuid4().hex[:8]}:"
    try:
        process, running = start_server(settings, log, KENNING_QUEUE_WORKERS="0", **router)
        try:
            yield running.with_key(asyncio.run(create_key(settings, Scope("acme"), Role.ADMIN)))
        finally:
            stop_server(process)
    finally:
        demo.stop()


@contextmanager
def worker_server(settings: Settings, log: Path) -> Iterator[Server]:
    """A second server over the same database whose queue worker runs the queued jobs."""
    process, running = start_server(settings, log, KENNING_QUEUE_WORKERS="1")
    try:
        yield running
    finally:
        stop_server(process)


async def key_for(settings: Settings, role: Role, client: str = "acme") -> str:
    """A new key of ``role`` for ``client``."""
    return await create_key(settings, Scope(client), role)


def require_chromium() -> None:
    """Fail (not skip) without Debian's chromium; make ``artifacts/`` for the screenshots."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is missing: scripts/test.sh installs Debian's chromium")
    ARTIFACTS.mkdir(exist_ok=True)


@asynccontextmanager
async def chromium_browser() -> AsyncIterator[Browser]:
    """Debian's chromium, headless (call ``require_chromium`` first)."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@asynccontextmanager
async def console_page(browser: Browser) -> AsyncIterator[Page]:
    """A fresh browser context (its own sessionStorage) and page."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def sign_in(page: Page, server: Server, key: str, route: str = "queue") -> None:
    """Open the console at ``#/<route>`` and sign in with ``key``."""
    await page.goto(f"{server.url}/console/#/{route}")
    await page.fill("#api-key", key)
    await page.click("button[type=submit]")
    await expect(page.get_by_test_id("viewer")).to_be_visible(timeout=10_000)


async def screenshot(page: Page, name: str) -> Path:
    """Save the page as ``artifacts/console-<name>.png``."""
    path = ARTIFACTS / f"console-{name}.png"
    await page.screenshot(path=path, full_page=True)
    return path


async def seconds_until(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> float:
    """Seconds until ``check()`` holds (polled every 20 ms); fails after ``within`` s."""
    started = time.monotonic()
    while not await check():
        if time.monotonic() - started > within:
            raise AssertionError(f"not true within {within} s")
        await asyncio.sleep(0.02)
    return time.monotonic() - started


async def graphql(server: Server, document: str, **variables: Any) -> dict[str, Any]:
    """Run ``document`` as the server's key; the ``data`` (asserting no errors)."""
    async with httpx.AsyncClient(timeout=30) as client:
        answer = await client.post(
            f"{server.url}/graphql",
            json={"query": document, "variables": variables},
            headers=server.headers,
        )
    body: dict[str, Any] = answer.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


REQUEST_INGESTION = """mutation R($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename ... on IngestionHandle { jobId status } ... on Error { message } } }"""


async def queue_document(server: Server, urn: str, priority: int = 3) -> str:
    """Queue a small document; its job id."""
    data = await graphql(
        server,
        REQUEST_INGESTION,
        input={"sourceUrn": urn, "kind": "note", "content": f"About {urn}.", "priority": priority},
        identity={"sourceKind": "console-e2e", "contentVersion": "v1"},
    )
    handle = data["requestIngestion"]
    assert handle["__typename"] == "IngestionHandle", handle
    return str(handle["jobId"])
