"""checkIns on the real stack: newest first, cursor paging, bad arguments by field, and
each caller seeing only the check-ins its scope may read."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.structure_prompt import EXAMPLE_ANSWER
from kenning.router.demo import FakeOllama
from kenning.runtime import Runtime
from kenning.storage.models import OllamaModelClient
from tests.fakes.ollama import FakeFactory
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME_WEB = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
ACME_API = Principal("acme-api", Scope("acme", "api"), Role.AGENT)
ACME = Principal("acme", Scope("acme"), Role.UI)
BETA = Principal("beta", Scope("beta"), Role.AGENT)

DRY_RUN = """mutation S($text: String!) { structureKnowledge(input: {text: $text, dryRun: true}) {
  __typename ... on StructureKnowledgeSuccess { checkIn { id } } } }"""
PAGE = """query C($first: Int!, $after: String, $scope: ScopeInput) {
  checkIns(first: $first, after: $after, scope: $scope) {
    __typename
    ... on CheckInPage { endCursor hasNextPage nodes { id inputText caller createdAt } }
    ... on Error { code field } } }"""


@pytest.fixture
async def fake(fake_ollama_factory: FakeFactory, runtime: Runtime) -> AsyncIterator[FakeOllama]:
    ollama = fake_ollama_factory()
    ollama.replier = lambda body: json.dumps(EXAMPLE_ANSWER)
    client = OllamaModelClient(ollama.url, timeout=10)
    runtime.models = client
    yield ollama
    await client.aclose()


async def dry_run(api: Api, text: str) -> str:
    done = (await api(DRY_RUN, text=text))["structureKnowledge"]
    assert done["__typename"] == "StructureKnowledgeSuccess", done
    check_in_id: str = done["checkIn"]["id"]
    return check_in_id


async def page(api: Api, first: int, after: str | None = None, **scope: Any) -> dict[str, Any]:
    narrow = scope_input(Scope(**scope)) if scope else None
    found: dict[str, Any] = (await api(PAGE, first=first, after=after, scope=narrow))["checkIns"]
    return found


async def test_pages_run_newest_first_and_end(api: Api, fake: FakeOllama) -> None:
    web = api.as_(ACME_WEB)
    made = [await dry_run(web, f"note {i} about billing") for i in range(5)]
    seen, after, pages = [], None, []
    while True:
        found = await page(web, 2, after)
        assert found["__typename"] == "CheckInPage", found
        pages.append(len(found["nodes"]))
        seen += found["nodes"]
        if not found["hasNextPage"]:
            break
        after = found["endCursor"]
    assert pages == [2, 2, 1]
    assert [n["id"] for n in seen] == made[::-1]
    assert [n["inputText"] for n in seen] == [f"note {i} about billing" for i in range(4, -1, -1)]
    stamps = [n["createdAt"] for n in seen]
    assert stamps == sorted(stamps, reverse=True) and {n["caller"] for n in seen} == {"acme-web"}


async def test_bad_arguments_name_their_field(api: Api, fake: FakeOllama) -> None:
    web = api.as_(ACME_WEB)
    await dry_run(web, "one note")
    for first in (0, 101):
        assert (await page(web, first))["field"] == "first"
    for cursor in ("not-a-cursor", "bm9wZQ"):
        found = await page(web, 5, cursor)
        assert (found["__typename"], found["field"]) == ("ValidationError", "after")


async def test_each_caller_sees_only_what_its_scope_may_read(api: Api, fake: FakeOllama) -> None:
    web = await dry_run(api.as_(ACME_WEB), "web team note")
    other = await dry_run(api.as_(ACME_API), "api team note")
    beta = await dry_run(api.as_(BETA), "beta note")

    async def ids(principal: Principal, **scope: str) -> set[str]:
        found = await page(api.as_(principal), 100, **scope)
        assert found["__typename"] == "CheckInPage", (principal, found)
        return {n["id"] for n in found["nodes"]}

    assert await ids(ACME_WEB) == {web}
    assert await ids(ACME_API) == {other}
    assert await ids(ACME) == {web, other}  # a client-wide key, even read-only
    assert await ids(ACME, client_id="acme", project_id="web") == {web}
    assert await ids(BETA) == {beta}
    assert await ids(Principal("root", Scope(), Role.ADMIN)) == {web, other, beta}
    outside = await page(api.as_(ACME_WEB), 10, client_id="beta")
    assert (outside["__typename"], outside["code"]) == ("ScopeError", "OUT_OF_SCOPE")
