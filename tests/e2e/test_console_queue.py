"""The console's Queue page in a real Chromium: queued jobs appear, move and finish live.

Each change must show within a second of the server making it: the page follows the
``queueStatus`` subscription, it never polls. Jobs stay queued (the server runs no workers)
until the last test starts a second server whose worker runs them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from kenning.settings import Settings
from tests.support.console_browser import (
    console_page,
    console_server,
    console_settings,
    graphql,
    queue_document,
    screenshot,
    seconds_until,
    sign_in,
    worker_server,
)
from tests.support.database import TEST_DATABASE
from tests.support.server_process import Server

pytestmark = pytest.mark.e2e

WITHIN = 1.0  # seconds from a change on the server to the page showing it

REORDER = """mutation M($id: ID!, $position: Int!) {
  reorderQueueItem(jobId: $id, position: $position) {
  __typename ... on IngestionJob { position } ... on Error { message } } }"""
STATUS = "query S($id: ID!) { ingestionStatus(jobId: $id) { status } }"


@pytest.fixture(scope="module")
def settings(test_settings: Settings) -> Settings:
    return console_settings(test_settings, f"{TEST_DATABASE}_console_queue")


@pytest.fixture(scope="module")
def server(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with console_server(settings, tmp_path_factory.mktemp("console") / "server.log") as running:
        yield running


@pytest.fixture
async def page(browser: Browser, server: Server) -> AsyncIterator[Page]:
    async with console_page(browser) as opened:
        await sign_in(opened, server, server.key)
        await expect(opened.get_by_test_id("counts")).to_be_visible(timeout=10_000)
        yield opened


async def bulk_order(page: Page) -> list[str]:
    """The BULK lane's job ids as the page shows them, top to bottom.

    Read in one call: reading row by row, a row the live page removed in between (a cancel)
    left the read waiting 30 s for it.
    """
    rows = page.get_by_test_id("lane-BULK").locator("tr[data-job]")
    ids = await rows.evaluate_all("rows => rows.map((row) => row.dataset.job)")
    return [str(job) for job in ids]


async def test_a_queued_job_appears_moves_and_finishes_within_a_second(
    page: Page,
    server: Server,
    settings: Settings,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = await queue_document(server, "console://queue/first")
    second = await queue_document(server, "console://queue/second")

    async def shows_both() -> bool:
        return (await bulk_order(page))[-2:] == [first, second]

    appeared = await seconds_until(shows_both)
    assert appeared < WITHIN, f"queued jobs showed after {appeared:.2f} s"
    row = page.get_by_test_id("lane-BULK").locator(f"tr[data-job='{second}']")
    await expect(row).to_have_attribute("data-position", "2")
    await screenshot(page, "queue-queued")

    moved = await graphql(server, REORDER, id=second, position=1)
    assert moved["reorderQueueItem"]["position"] == 1, moved

    async def shows_moved() -> bool:
        return (await bulk_order(page))[:2] == [second, first]

    moved_in = await seconds_until(shows_moved)
    assert moved_in < WITHIN, f"the move showed after {moved_in:.2f} s"
    await expect(row).to_have_attribute("data-position", "1")

    finished_in = 0.0
    with worker_server(settings, tmp_path / "worker.log"):
        for job in (second, first):

            async def indexed(job: str = job) -> bool:
                data = await graphql(server, STATUS, id=job)
                return bool(data["ingestionStatus"]["status"] == "INDEXED")

            await seconds_until(indexed, within=60)
            done = page.get_by_test_id("recent").locator(
                f"tr[data-job='{job}']", has_text="indexed"
            )

            async def shown(done: Locator = done) -> bool:
                return await done.count() > 0

            finished_in = max(finished_in, await seconds_until(shown))
            assert finished_in < WITHIN, f"job {job} showed indexed {finished_in:.2f} s late"
            await expect(done.first).to_be_visible()
    await expect(page.get_by_test_id("lane-BULK")).to_contain_text("Nothing queued")
    indexed_count = page.locator("[data-testid=counts] tr[data-lane=BULK] td[data-status=INDEXED]")
    await expect(indexed_count).to_have_text("2")
    await screenshot(page, "queue-finished")
    with capsys.disabled():
        print(
            f"\nconsole queue: appeared {appeared:.2f} s, moved {moved_in:.2f} s, "
            f"finished shown {finished_in:.2f} s after the server"
        )


async def test_the_buttons_reorder_prioritize_and_cancel(page: Page, server: Server) -> None:
    jobs = [await queue_document(server, f"console://buttons/{n}") for n in range(3)]
    lane = page.get_by_test_id("lane-BULK")

    async def order_is(expected: list[str]) -> bool:
        return await bulk_order(page) == expected

    await seconds_until(lambda: order_is(jobs))
    await lane.locator(f"tr[data-job='{jobs[2]}']").get_by_title("Move up one").click()
    await seconds_until(lambda: order_is([jobs[0], jobs[2], jobs[1]]), within=WITHIN + 1)

    await lane.locator(f"tr[data-job='{jobs[1]}']").get_by_role("button", name="Prioritize").click()
    await seconds_until(lambda: order_is([jobs[1], jobs[0], jobs[2]]), within=WITHIN + 1)

    target = lane.locator(f"tr[data-job='{jobs[1]}']")
    await target.get_by_label("position").fill("3")
    await target.get_by_role("button", name="Move").click()
    await seconds_until(lambda: order_is([jobs[0], jobs[2], jobs[1]]), within=WITHIN + 1)
    await expect(lane.locator(f"tr[data-job='{jobs[1]}']")).to_have_attribute("data-position", "3")
    await screenshot(page, "queue-reordered")

    await lane.locator(f"tr[data-job='{jobs[0]}']").get_by_role("button", name="Cancel").click()
    await seconds_until(lambda: order_is([jobs[2], jobs[1]]), within=WITHIN + 1)
    cancelled = page.get_by_test_id("recent").locator(f"tr[data-job='{jobs[0]}']")
    await expect(cancelled.first).to_contain_text("cancelled")

    await cancelled.first.get_by_role("button", name="Retry").click()

    async def requeued() -> bool:
        return jobs[0] in await bulk_order(page)

    try:
        await seconds_until(requeued, within=WITHIN + 1)
    finally:
        await screenshot(page, "queue-retried")
    assert sorted(await bulk_order(page)) == sorted(jobs)
    await screenshot(page, "queue-retried")


async def test_a_job_page_streams_its_progress(page: Page, server: Server) -> None:
    job = await queue_document(server, "console://detail/1")
    await page.goto(f"{server.url}/console/#/jobs/{job}")
    await expect(page.get_by_test_id("live")).to_contain_text("Live")
    await expect(page.locator("[data-field=status]")).to_have_text("QUEUED")
    await page.get_by_role("button", name="Cancel").click()
    await expect(page.locator("[data-field=status]")).to_have_text("CANCELLED", timeout=2_000)
    # The stream completes at a terminal status.
    await expect(page.get_by_test_id("live")).to_contain_text("Not streaming")
    await expect(page.get_by_role("button", name="Retry")).to_be_visible()
    await screenshot(page, "job")
