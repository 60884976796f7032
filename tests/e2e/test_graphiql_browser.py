"""GraphiQL in a real Chromium against a real server: offline, a pasted key, live results.

Drives Debian's ``/usr/bin/chromium`` (``scripts/test.sh`` installs it) with Playwright;
never ``playwright install``, which downloads a browser this machine cannot fetch.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, ConsoleMessage, Page, async_playwright, expect

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.graphiql._bundle import load_bundle
from kenning.settings import Settings
from kenning.storage.db.pool import connect
from tests.support.browser_traffic import Traffic
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

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
SCREENSHOT = Path(__file__).resolve().parents[2] / "artifacts" / "graphiql.png"

HEALTH = "{ health { postgres } }"
HEARTBEAT = "subscription { heartbeat(count: 2, intervalMs: 100) { seq } }"
QUERY_EDITOR = ".graphiql-query-editor"
RESULT = ".graphiql-response"
SHOWN_TOOL = ".graphiql-editor-tool .graphiql-editor:not(.hidden)"
KEY_FIELD = "#kenning-api-key"
KEY_BUTTON = "#kenning-api-key-use"
KEY_STATUS = "#kenning-api-key-status"
# What the browser delivers on Ctrl+V, without the system clipboard (shared, so racy).
PASTE = """text => {
  const data = new DataTransfer();
  data.setData("text/plain", text);
  const init = { clipboardData: data, bubbles: true, cancelable: true };
  document.activeElement.dispatchEvent(new ClipboardEvent("paste", init));
}"""


def elapsed(started: float) -> str:
    return f"{time.monotonic() - started:.1f} s"


@pytest.fixture(scope="module")
def graphiql_server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("graphiql") / "server.log"
    process, running = start_server(migrated_settings, log, KENNING_GRAPHIQL="true")
    key = asyncio.run(create_key(migrated_settings, Scope("acme"), Role.AGENT))
    yield running.with_key(key)
    stop_server(process)


@pytest.fixture(scope="module")
def chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/test.sh installs Debian's chromium")
    return CHROMIUM


@pytest.fixture(scope="module")
async def browser(chromium: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    yield await context.new_page()
    await context.close()


@pytest.fixture(scope="module")
async def postgres_version(migrated_settings: Settings) -> str:
    conn = await connect(migrated_settings)
    try:
        return str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()


async def open_graphiql(page: Page, server: Server) -> None:
    await page.goto(f"{server.url}/graphql")
    await expect(page.locator(f"{QUERY_EDITOR} .monaco-editor")).to_be_visible(timeout=20_000)
    await expect(page.locator(f"{RESULT} .monaco-editor")).to_be_visible()
    # GraphiQL fills the editor once its tabs are restored; a paste before that is lost.
    await expect(page.locator(f"{QUERY_EDITOR} .view-lines")).to_contain_text("health")


async def use_key(page: Page, key: str) -> None:
    await page.fill(KEY_FIELD, key)
    await page.click(KEY_BUTTON)
    # The page asks the server who the key is (viewer) and says so.
    await expect(page.locator(KEY_STATUS)).to_contain_text("Key in use")
    await expect(page.locator(KEY_STATUS)).to_contain_text("AGENT of client acme")


async def set_editor_text(page: Page, editor: str, text: str) -> None:
    """Replace a Monaco editor's text by pasting (typing would auto-close brackets)."""
    await page.click(f"{editor} .monaco-editor .view-lines")
    await page.keyboard.press("ControlOrMeta+a")
    await page.evaluate(PASTE, text)


async def editor_text(page: Page, editor: str) -> str:
    """The editor's visible text, wrapped lines and Monaco's no-break spaces undone."""
    return " ".join((await page.locator(f"{editor} .view-lines").inner_text()).split())


async def wait_for_text(
    page: Page, editor: str, matches: Callable[[str], bool], within: float = 15
) -> str:
    """The editor's text once ``matches`` accepts it (or as it is after ``within`` s).

    Monaco redraws on the next animation frame, so the text is polled, never read once.
    """
    deadline = time.monotonic() + within
    while True:
        text = await editor_text(page, editor)
        if matches(text) or time.monotonic() > deadline:
            return text
        await page.wait_for_timeout(100)


async def run(page: Page, query: str) -> None:
    await set_editor_text(page, QUERY_EDITOR, query)
    assert await wait_for_text(page, QUERY_EDITOR, lambda text: text == query) == query
    await page.click(".graphiql-execute-button")


async def test_a_pasted_key_runs_a_query_and_a_streaming_subscription(
    graphiql_server: Server, page: Page, postgres_version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    traffic = Traffic()
    traffic.watch(page)
    await open_graphiql(page, graphiql_server)
    await use_key(page, graphiql_server.key)

    await run(page, HEALTH)
    shown = await wait_for_text(page, RESULT, lambda text: postgres_version in text)
    assert f'"postgres": "{postgres_version}"' in shown
    SCREENSHOT.parent.mkdir(exist_ok=True)
    await page.screenshot(path=SCREENSHOT)
    with capsys.disabled():
        print(f"\nGraphiQL screenshot: {SCREENSHOT}")

    await run(page, HEARTBEAT)
    shown = await wait_for_text(page, RESULT, lambda text: '"seq": 2' in text)
    assert '"heartbeat": { "seq": 2 }' in shown
    init = next(frame for frame in traffic.sent if frame["type"] == "connection_init")
    assert init["payload"] == {"Authorization": f"Bearer {graphiql_server.key}"}
    # The page shows the second event before the server's "complete" frame arrives.
    streamed = await traffic.stream_frames(until="complete")
    assert [frame["type"] for frame in streamed] == ["next", "next", "complete"]
    ticks = [frame["payload"] for frame in streamed[:2]]
    assert ticks == [{"data": {"heartbeat": {"seq": seq}}} for seq in (1, 2)]
    assert traffic.foreign_hosts() == set()
    with capsys.disabled():
        print(f"GraphiQL browser flow (load, key, query, subscription): {elapsed(started)}")


async def test_the_page_loads_nothing_from_other_hosts(graphiql_server: Server, page: Page) -> None:
    traffic = Traffic()
    traffic.watch(page)
    problems: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            problems.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(str(error)))
    await open_graphiql(page, graphiql_server)
    await page.wait_for_load_state("networkidle")
    assert traffic.foreign_hosts() == set()
    assert any("/graphiql/assets/graphiql-" in url for url in traffic.urls)
    assert any(".worker-" in url for url in traffic.urls)
    assert problems == []
    hint = " ".join((await page.locator(".kenning-hint").inner_text()).split())
    assert hint.endswith("--role agent (or ui, admin)"), hint


async def test_the_headers_editor_still_sends_its_own_key(
    graphiql_server: Server, page: Page, postgres_version: str
) -> None:
    await open_graphiql(page, graphiql_server)
    await expect(page.locator(KEY_STATUS)).to_contain_text("No key")
    await page.get_by_role("button", name="Headers").click()
    headers = json.dumps({"Authorization": f"Bearer {graphiql_server.key}"})
    await set_editor_text(page, SHOWN_TOOL, headers)
    await run(page, HEALTH)
    assert postgres_version in await wait_for_text(
        page, RESULT, lambda text: postgres_version in text
    )


async def test_the_key_lasts_for_the_browser_session_only(
    graphiql_server: Server, browser: Browser, page: Page
) -> None:
    await open_graphiql(page, graphiql_server)
    await use_key(page, graphiql_server.key)
    await page.reload()
    await expect(page.locator(KEY_STATUS)).to_contain_text("Key in use")
    assert graphiql_server.key not in await page.evaluate("JSON.stringify(localStorage)")

    other_session = await browser.new_context()
    try:
        fresh = await other_session.new_page()
        await open_graphiql(fresh, graphiql_server)
        await expect(fresh.locator(KEY_STATUS)).to_contain_text("No key")
    finally:
        await other_session.close()

    await page.click("#kenning-api-key-forget")
    await expect(page.locator(KEY_STATUS)).to_contain_text("No key")
    assert await page.evaluate("sessionStorage.length") == 0


def test_graphiql_is_off_unless_enabled(server: Server) -> None:
    page = httpx.get(f"{server.url}/graphql", headers={"Accept": "text/html"}, timeout=10)
    assert page.status_code == 401
    assert "<html" not in page.text
    bundle = load_bundle()
    assert bundle is not None, "GraphiQL is not built: scripts/install.sh builds it"
    script = httpx.get(f"{server.url}/graphiql/assets/{bundle.js}", timeout=10)
    assert script.status_code == 404


async def test_a_key_the_server_refuses_is_said_to_be_refused(
    graphiql_server: Server, page: Page
) -> None:
    await open_graphiql(page, graphiql_server)
    await page.fill(KEY_FIELD, "kn_not-a-real-key")
    await page.click(KEY_BUTTON)
    await expect(page.locator(KEY_STATUS)).to_contain_text("Key refused")
    await expect(page.locator(KEY_STATUS)).to_contain_text("not valid")


async def test_a_named_subscription_run_right_after_its_paste_streams_over_the_websocket(
    graphiql_server: Server, page: Page
) -> None:
    # GraphiQL hands the fetcher the operation name it parsed last, after a debounce: run at
    # once after a paste and the name is the previous document's, which the new one lacks.
    traffic = Traffic()
    traffic.watch(page)
    await open_graphiql(page, graphiql_server)
    await use_key(page, graphiql_server.key)
    await run(page, "query Health { health { postgres } }")
    await wait_for_text(page, RESULT, lambda text: '"postgres"' in text)

    await set_editor_text(
        page, QUERY_EDITOR, HEARTBEAT.replace("subscription", "subscription Beat")
    )
    await page.click(".graphiql-execute-button")  # no wait: within GraphiQL's debounce

    shown = await wait_for_text(page, RESULT, lambda text: '"seq": 2' in text)
    assert '"heartbeat": { "seq": 2 }' in shown
    [subscribe] = [frame for frame in traffic.sent if frame["type"] == "subscribe"]
    assert subscribe["payload"]["operationName"] in ("Beat", None)  # type: ignore[index]
