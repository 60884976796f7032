"""Hard rules over GraphQL on the real stack: versions (also under racing stores), soft
deletes, project overrides, who may write, and that rules stay out of soft memory."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.rules import history_cursor
from kenning.runtime import Runtime
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

RULE = """ruleKey ruleType content description clientId projectId version createdBy
  createdAt supersededAt deletedAt"""
STORE = f"""mutation S($key: String!, $type: RuleType!, $content: String!,
    $description: String! = "", $projectId: String) {{
  storeRule(ruleKey: $key, ruleType: $type, content: $content, description: $description,
            projectId: $projectId) {{
    __typename ... on StoreRuleSuccess {{ rule {{ {RULE} }} }}
    ... on Error {{ code field }} }} }}"""
DELETE = f"""mutation D($key: String!, $projectId: String) {{
  deleteRule(ruleKey: $key, projectId: $projectId) {{
    __typename ... on DeleteRuleSuccess {{ rule {{ {RULE} }} }}
    ... on Error {{ code field }} }} }}"""
RULES = f"""query R($projectId: String) {{ rules(projectId: $projectId) {{ {RULE} }} }}"""
HISTORY = f"""query H($key: String!, $projectId: String, $first: Int! = 20, $after: String) {{
  ruleHistory(ruleKey: $key, projectId: $projectId, first: $first, after: $after) {{
    nodes {{ {RULE} }} endCursor hasNextPage }} }}"""

ACME = Principal(key_id="acme-agent", scope=Scope("acme"), role=Role.AGENT)
ACME_WEB = Principal(key_id="acme-web-agent", scope=Scope("acme", "web"), role=Role.AGENT)
ACME_UI = Principal(key_id="acme-ui", scope=Scope("acme"), role=Role.UI)


@pytest.fixture
async def acme(runtime: Runtime, pool: asyncpg.Pool) -> AsyncIterator[Api]:
    """A client-wide agent of acme, over an empty rules table."""
    await pool.execute("TRUNCATE hard_rules")
    yield Api(runtime, ACME)


async def stored(api: Api, key: str, content: str, **extra: Any) -> dict[str, Any]:
    variables = {"key": key, "type": "ROUTING", "content": content, **extra}
    result = (await api(STORE, **variables))["storeRule"]
    assert result["__typename"] == "StoreRuleSuccess", result
    rule: dict[str, Any] = result["rule"]
    return rule


async def test_storing_a_key_again_makes_version_two_and_supersedes_one(acme: Api) -> None:
    first = await stored(acme, "escalation", "page the on-call", description="nights")
    second = await stored(acme, "escalation", "page the lead", type="SECURITY")
    assert (first["version"], second["version"]) == (1, 2)
    assert second["ruleType"] == "SECURITY" and second["createdBy"] == "acme-agent"
    assert second["clientId"] == "acme" and second["projectId"] is None
    history = (await acme(HISTORY, key="escalation"))["ruleHistory"]["nodes"]
    assert [(r["version"], r["content"]) for r in history] == [
        (2, "page the lead"),
        (1, "page the on-call"),
    ]
    assert history[0]["supersededAt"] is None and history[0]["deletedAt"] is None
    assert history[1]["supersededAt"] == history[0]["createdAt"]
    assert history[1]["description"] == "nights"
    active = (await acme(RULES))["rules"]
    assert [(r["ruleKey"], r["version"]) for r in active] == [("escalation", 2)]


async def test_racing_stores_of_one_key_get_distinct_consecutive_versions(acme: Api) -> None:
    racers = 8
    results = await asyncio.gather(
        *(acme(STORE, key="race", type="CUSTOM", content=f"writer {i}") for i in range(racers))
    )
    versions = sorted(r["storeRule"]["rule"]["version"] for r in results)
    assert versions == list(range(1, racers + 1))
    history = (await acme(HISTORY, key="race"))["ruleHistory"]["nodes"]
    assert [r["version"] for r in history] == list(range(racers, 0, -1))
    assert [r["supersededAt"] is None for r in history] == [True] + [False] * (racers - 1)
    # Each version replaced the one before it, never an older one: the times chain.
    for newer, older in itertools.pairwise(history):
        assert older["supersededAt"] == newer["createdAt"]
        assert datetime.fromisoformat(older["createdAt"]) <= datetime.fromisoformat(
            newer["createdAt"]
        )


async def test_delete_is_soft_and_a_new_store_continues_the_versions(acme: Api) -> None:
    await stored(acme, "notify", "mail the team")
    deleted = (await acme(DELETE, key="notify"))["deleteRule"]
    assert deleted["__typename"] == "DeleteRuleSuccess"
    assert deleted["rule"]["version"] == 1 and deleted["rule"]["deletedAt"] is not None
    assert (await acme(RULES))["rules"] == []
    again = (await acme(DELETE, key="notify"))["deleteRule"]
    assert again == {"__typename": "NotFoundError", "code": "NOT_FOUND", "field": "ruleKey"}
    history = (await acme(HISTORY, key="notify"))["ruleHistory"]["nodes"]
    assert [(r["version"], r["deletedAt"] is not None) for r in history] == [(1, True)]
    back = await stored(acme, "notify", "mail the lead")
    assert back["version"] == 2
    assert [r["content"] for r in (await acme(RULES))["rules"]] == ["mail the lead"]


async def test_a_long_history_is_read_a_page_at_a_time(acme: Api) -> None:
    for n in range(1, 46):
        await stored(acme, "escalation", f"version {n}")
    pages, after = [], None
    while True:
        page = (await acme(HISTORY, key="escalation", after=after))["ruleHistory"]
        pages.append([r["version"] for r in page["nodes"]])
        if not page["hasNextPage"]:
            break
        after = page["endCursor"]
    assert pages == [list(range(45, 25, -1)), list(range(25, 5, -1)), list(range(5, 0, -1))]
    three = (await acme(HISTORY, key="escalation", first=3))["ruleHistory"]
    assert [r["version"] for r in three["nodes"]] == [45, 44, 43] and three["hasNextPage"]
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"first": 51}, "first"),
        ({"first": 0}, "first"),
        ({"after": "bm90"}, "after"),
        ({"after": history_cursor(2**31)}, "after"),
    ]
    for bad, field in refusals:
        refused = await acme.execute(HISTORY, key="escalation", **bad)
        assert refused.errors is not None, bad
        assert refused.errors[0].extensions is not None
        assert refused.errors[0].extensions["code"] == "BAD_USER_INPUT", bad
        assert refused.errors[0].extensions["field"] == field, bad


async def test_at_most_200_rules_are_in_force_per_scope(acme: Api) -> None:
    await asyncio.gather(*(stored(acme, f"rule-{n:03}", f"rule {n}") for n in range(200)))
    over = (await acme(STORE, key="one-more", type="CUSTOM", content="x"))["storeRule"]
    assert over == {"__typename": "ValidationError", "code": "TOO_LARGE", "field": "ruleKey"}
    # A new version of a rule in force takes no new place; another project has its own.
    assert (await stored(acme, "rule-007", "rule 7, again"))["version"] == 2
    assert (await stored(acme, "one-more", "x", projectId="web"))["version"] == 1
    await acme(DELETE, key="rule-000")
    assert (await stored(acme, "one-more", "x"))["version"] == 1
    assert len((await acme(RULES))["rules"]) == 200


async def test_a_project_rule_overrides_the_client_rule_of_the_same_key(acme: Api) -> None:
    await stored(acme, "route", "to ops")
    await stored(acme, "notify", "mail the team")
    await stored(acme, "route", "to web devs", projectId="web")
    await stored(acme, "route", "to api devs", projectId="api")
    at_web = (await acme(RULES, projectId="web"))["rules"]
    assert [(r["ruleKey"], r["content"], r["projectId"]) for r in at_web] == [
        ("notify", "mail the team", None),
        ("route", "to web devs", "web"),
    ]
    client_wide = (await acme(RULES))["rules"]
    assert [r["content"] for r in client_wide] == ["mail the team", "to ops"]
    # A project key reads its own project's rules without naming it.
    assert (await acme.as_(ACME_WEB)(RULES))["rules"] == at_web
    await acme(DELETE, key="route", projectId="web")
    after = (await acme(RULES, projectId="web"))["rules"]
    assert [r["content"] for r in after] == ["mail the team", "to ops"]


async def test_ui_keys_read_only_and_project_keys_write_their_project_only(acme: Api) -> None:
    await stored(acme, "route", "to ops")
    viewer = acme.as_(ACME_UI)
    refused = (await viewer(STORE, key="route", type="ROUTING", content="x"))["storeRule"]
    assert refused["__typename"] == "ScopeError"
    assert (await viewer(DELETE, key="route"))["deleteRule"]["__typename"] == "ScopeError"
    assert [r["content"] for r in (await viewer(RULES))["rules"]] == ["to ops"]
    web = acme.as_(ACME_WEB)
    client_wide = await web(STORE, key="route", type="ROUTING", content="x", projectId="")
    assert client_wide["storeRule"]["__typename"] == "ScopeError"
    own = await stored(web, "route", "to web devs")
    assert own["projectId"] == "web" and own["createdBy"] == "acme-web-agent"
    other = await web(STORE, key="route", type="ROUTING", content="x", projectId="api")
    assert other["storeRule"]["__typename"] == "ScopeError"
    outside = await web.execute(RULES, projectId="api")
    assert outside.errors is not None and "outside" in outside.errors[0].message


async def test_bad_input_is_refused_with_its_field_and_stores_nothing(
    acme: Api, pool: asyncpg.Pool
) -> None:
    cases = [
        ({"key": " padded"}, "ruleKey"),
        ({"key": "k" * 201}, "ruleKey"),
        ({"content": " "}, "content"),
        ({"content": "x" * 10_001}, "content"),
        ({"description": "d" * 2_001}, "description"),
    ]
    for change, field in cases:
        variables = {"key": "k", "type": "CUSTOM", "content": "c", **change}
        result = (await acme(STORE, **variables))["storeRule"]
        assert (result["__typename"], result["field"]) == ("ValidationError", field), change
    leaky = await acme(STORE, key="k", type="SECURITY", content="token AKIAIOSFODNN7EXAMPLF")
    assert leaky["storeRule"] == {
        "__typename": "SensitiveContentError",
        "code": "SENSITIVE_CONTENT",
        "field": "content",
    }
    assert await pool.fetchval("SELECT count(*) FROM hard_rules") == 0


async def test_rules_stay_out_of_soft_memory(
    acme: Api, pool: asyncpg.Pool, embedder: CountingEmbedder
) -> None:
    await stored(acme, "route", "to ops")
    await acme(RULES)
    await acme(HISTORY, key="route")
    assert embedder.calls == 0
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0
