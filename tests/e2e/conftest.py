"""A real `kenning serve` process on a free loopback port, against the test database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Browser, Page

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.console_browser import chromium_browser, console_page, require_chromium
from tests.support.server_process import Server, create_key, start_server, stop_server


@pytest.fixture(scope="session")
def server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One server for the session, without queue workers: it outlives the e2e tests, and
    the integration tests after them share its database (its workers would index their
    queued jobs under them). Tests that need jobs to run use ``working_server``."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    process, running = start_server(migrated_settings, log)
    key = asyncio.run(create_key(migrated_settings, Scope(), Role.ADMIN))
    yield running.with_key(key)
    stop_server(process)


@pytest.fixture(scope="module")
def working_server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A server with queue workers, for one test module."""
    log = tmp_path_factory.mktemp("working") / "server.log"
    process, running = start_server(migrated_settings, log, KENNING_QUEUE_WORKERS="2")
    key = asyncio.run(create_key(migrated_settings, Scope(), Role.ADMIN))
    yield running.with_key(key)
    stop_server(process)


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    """Debian's chromium for one module of console tests (skipped where it is missing)."""
    require_chromium()
    async with chromium_browser() as launched:
        yield launched


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A fresh console tab (its own context: no key carried over between tests)."""
    async with console_page(browser) as opened:
        yield opened
