"""The console's Memory page in a real Chromium: a stored rule with its history, user
knowledge by category, the session and procedures; write forms for agent keys, none for ui."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Page, expect

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.console_browser import (
    console_server,
    console_settings,
    graphql,
    screenshot,
    sign_in,
)
from tests.support.database import TEST_DATABASE
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

STORE_RULE = """mutation R($key: String!, $content: String!) {
  storeRule(ruleKey: $key, ruleType: VALIDATION, content: $content, description: "review") {
    __typename ... on StoreRuleSuccess { rule { version } } ... on Error { message } } }"""
STORE_KNOWLEDGE = """mutation K {
  storeKnowledge(subject: "editor", content: "Prefers vim keybindings", category: PREFERENCE) {
    __typename ... on Error { message } } }"""
APPEND = """mutation A {
  appendSessionEntry(source: CHAT, summary: "Asked how billing retries work") {
    __typename ... on Error { message } } }"""
SAVE_PROCEDURE = """mutation P {
  saveProcedure(input: {triggerPattern: "deploy the billing service",
    description: "Build, test, then roll out behind a canary.", source: USER_DEFINED,
    steps: [{agent: "coder", action: "run_tests", parameters: {suite: "billing"}}]}) {
    __typename ... on Error { message } } }"""


ACME = Scope("acme")


async def agent_key(settings: Settings) -> str:
    return await create_key(settings, ACME, Role.AGENT)


@pytest.fixture(scope="module")
def settings(test_settings: Settings) -> Settings:
    return console_settings(test_settings, f"{TEST_DATABASE}_console_memory")


@pytest.fixture(scope="module")
def server(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with console_server(settings, tmp_path_factory.mktemp("console") / "server.log") as running:
        yield running


@pytest.fixture(scope="module")
async def seeded(server: Server) -> Server:
    for content in ("Deploys need one approval.", "Deploys need two approvals."):
        answer = await graphql(server, STORE_RULE, key="deploy.approval", content=content)
        assert answer["storeRule"]["__typename"] == "StoreRuleSuccess", answer
    for document in (STORE_KNOWLEDGE, APPEND, SAVE_PROCEDURE):
        answer = await graphql(server, document)
        assert "Error" not in next(iter(answer.values()))["__typename"], answer
    return server


async def test_the_memory_page_shows_a_stored_rule_with_its_history(
    page: Page, seeded: Server, settings: Settings
) -> None:
    await sign_in(page, seeded, await agent_key(settings), route="memory")
    rule = page.locator("[data-rule='deploy.approval']")
    await expect(rule.locator(".rule-head")).to_contain_text("VALIDATION · client-wide · v2")
    await expect(rule.locator(".rule-content")).to_have_text("Deploys need two approvals.")
    await rule.get_by_role("button", name="History").click()
    versions = rule.get_by_test_id("rule-history").locator("li")
    await expect(versions).to_have_count(2)
    await expect(versions.nth(0)).to_contain_text("v2 · current Deploys need two approvals.")
    await expect(versions.nth(1)).to_contain_text("v1 · superseded")
    await expect(versions.nth(1)).to_contain_text("Deploys need one approval.")

    preferences = page.locator("[data-category=PREFERENCE]")
    await expect(preferences).to_contain_text("editor: Prefers vim keybindings")
    await expect(page.get_by_test_id("session-memory")).to_contain_text(
        "CHAT Asked how billing retries work"
    )
    await page.fill("#procedures-text", "deploy the billing service")
    await page.click("#procedures-find")
    procedures = page.get_by_test_id("procedures")
    await expect(procedures).to_contain_text("deploy the billing service · USER_DEFINED")
    await expect(procedures).to_contain_text('coder: run_tests {"suite":"billing"}')
    await screenshot(page, "memory")


async def test_a_long_rule_history_shows_its_older_versions_on_demand(
    page: Page, seeded: Server, settings: Settings
) -> None:
    for n in range(1, 23):
        answer = await graphql(seeded, STORE_RULE, key="paging.rule", content=f"Version {n}.")
        assert answer["storeRule"]["rule"]["version"] == n, answer
    await sign_in(page, seeded, await agent_key(settings), route="memory")
    rule = page.locator("[data-rule='paging.rule']")
    await rule.get_by_role("button", name="History").click()
    versions = rule.get_by_test_id("rule-history").locator("li")
    await expect(versions).to_have_count(20)
    await expect(versions.nth(19)).to_contain_text("v3 · superseded")
    await expect(versions.nth(19)).to_contain_text("Version 3.")
    await rule.get_by_role("button", name="Older versions").click()
    await expect(versions).to_have_count(22)
    await expect(versions.nth(21)).to_contain_text("Version 1.")
    await expect(rule.get_by_role("button", name="Older versions")).to_have_count(0)


async def test_an_agent_stores_a_rule_from_the_page(
    page: Page, seeded: Server, settings: Settings
) -> None:
    await sign_in(page, seeded, await agent_key(settings), route="memory")
    await page.fill("#rule-key", "notify.oncall")
    await page.select_option("#rule-type", "NOTIFICATION")
    await page.fill("#rule-content", "Page the on-call engineer for SEV1 incidents.")
    await page.click("#rule-store")
    rule = page.locator("[data-rule='notify.oncall']")
    await expect(rule.locator(".rule-head")).to_contain_text("NOTIFICATION · client-wide · v1")

    await page.fill("#rule-key", "notify.oncall")
    await page.fill("#rule-content", "")
    await page.evaluate("document.querySelector('#rule-content').removeAttribute('required')")
    await page.click("#rule-store")
    await expect(page.locator(".rule-form .error")).to_contain_text("(field: content)")
    await expect(rule.locator(".rule-head")).to_contain_text("v1")


async def test_a_ui_key_reads_memory_without_write_controls(
    page: Page, seeded: Server, settings: Settings
) -> None:
    await sign_in(page, seeded, await create_key(settings, ACME, Role.UI), route="memory")
    rule = page.locator("[data-rule='deploy.approval']")
    await expect(rule.locator(".rule-content")).to_have_text("Deploys need two approvals.")
    await expect(page.locator("[data-category=PREFERENCE]")).to_contain_text("editor")
    for control in ("#rule-store", "#knowledge-store", "#session-append"):
        await expect(page.locator(control)).to_have_count(0)
    await expect(page.get_by_role("button", name="Delete")).to_have_count(0)
    await screenshot(page, "memory-ui-key")
