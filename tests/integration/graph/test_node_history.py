"""Node property history on the real stack, through GraphQL: every value a property held
stays with what stated it (a source's URN or the correcting key), when it held and when it
was recorded; ``updateNode`` corrects a node and its old values stay in ``nodeHistory``;
corrections and retractions are in ``changes``, each client's only for that client; a
re-ingest, a purge and an alias merge keep the history in step; ``Node.degree`` honours
``asOf``."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

METADATA = """
mutation($urn: String!, $metadata: JSON!, $at: DateTime) {
  ingestGraph(input: {sourceUrn: $urn, metadata: $metadata, observedAt: $at}) {
    __typename ... on Error { code field message }
  }
}"""
UPDATE = """
mutation($key: String!, $set: JSON, $unset: [String!], $reason: String, $at: DateTime) {
  updateNode(key: $key, set: $set, unset: $unset, reason: $reason, observedAt: $at) {
    __typename
    ... on UpdateNodeSuccess { node { key properties } changed { name old new } }
    ... on Error { code field message }
  }
}"""
HISTORY = """
query($key: String!, $name: String, $first: Int! = 20, $after: String) {
  nodeHistory(key: $key, name: $name, first: $first, after: $after) {
    nodes { key name value source changedBy observedAt recordedAt endedAt endedBy
            scope { clientId projectId groupId } }
    endCursor hasNextPage
  }
}"""
CHANGES = """
query($key: String) {
  changes(key: $key, first: 50) {
    nodes { itemKind itemId itemKey action old new reason changedBy scope { clientId } }
  }
}"""

AGENT = Principal(key_id="agent-acme", scope=Scope("acme"), role=Role.AGENT)
OTHER = Principal(key_id="agent-globex", scope=Scope("globex"), role=Role.AGENT)
JAN, JUN = "2025-01-15T00:00:00+00:00", "2025-06-01T00:00:00+00:00"


@pytest.fixture
def acme(api: Api) -> Api:
    return api.as_(AGENT)


async def _billing(api: Api, urn: str = "kb:services", at: str | None = JAN, **extra: Any) -> None:
    properties = {"owner": "team:billing", "tier": 1, **extra}
    metadata = {"service:billing": {"type": "service", "properties": properties}}
    answer = (await api(METADATA, urn=urn, metadata=metadata, at=at))["ingestGraph"]
    assert answer["__typename"] == "IngestGraphSuccess", answer


async def _history(api: Api, key: str = "service:billing", **args: Any) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = (await api(HISTORY, key=key, **args))["nodeHistory"]["nodes"]
    return nodes


def _values(versions: list[dict[str, Any]]) -> list[tuple[str, Any, bool]]:
    """(name, value, current) newest first."""
    return [(v["name"], v["value"], v["endedAt"] is None) for v in versions]


async def test_a_correction_keeps_the_old_values_with_their_source(acme: Api) -> None:
    await _billing(acme)
    ingested = await _history(acme)
    assert _values(ingested) == [("tier", 1, True), ("owner", "team:billing", True)]
    assert {(v["source"], v["changedBy"], v["observedAt"]) for v in ingested} == {
        ("kb:services", None, JAN)
    }
    why = "Payments took billing over"
    correction = {"set": {"owner": "team:payments"}, "unset": ["tier"], "reason": why}
    answer = (await acme(UPDATE, key="Service::Billing", at=JUN, **correction))["updateNode"]
    assert answer == {
        "__typename": "UpdateNodeSuccess",
        "node": {"key": "service:billing", "properties": {"owner": "team:payments"}},
        "changed": [
            {"name": "owner", "old": "team:billing", "new": "team:payments"},
            {"name": "tier", "old": 1, "new": None},
        ],
    }
    versions = await _history(acme)
    assert _values(versions) == [
        ("owner", "team:payments", True),
        ("tier", 1, False),
        ("owner", "team:billing", False),
    ]
    new, tier, old = versions
    assert (new["source"], new["changedBy"], new["observedAt"]) == (None, "agent-acme", JUN)
    assert new["recordedAt"] == tier["endedAt"] == old["endedAt"]
    assert tier["endedBy"] == old["endedBy"] == "agent-acme"
    assert old["scope"] == {"clientId": "acme", "projectId": "", "groupId": ""}
    assert _values(await _history(acme, name="tier")) == [("tier", 1, False)]
    [change] = (await acme(CHANGES, key="service:billing"))["changes"]["nodes"]
    assert change == {
        "itemKind": "NODE",
        "itemId": "service:billing",
        "itemKey": "service:billing",
        "action": "UPDATE",
        "old": {"owner": "team:billing", "tier": 1},
        "new": {"owner": "team:payments"},
        "reason": why,
        "changedBy": "agent-acme",
        "scope": {"clientId": "acme"},
    }


async def test_a_source_restating_a_property_ends_the_older_value(acme: Api) -> None:
    await _billing(acme)
    await _billing(acme, urn="kb:services-2025", at=JUN, tier=2)
    versions = await _history(acme)
    assert _values(versions) == [
        ("tier", 2, True),
        ("tier", 1, False),
        ("owner", "team:billing", True),
    ]
    assert (versions[0]["source"], versions[0]["observedAt"]) == ("kb:services-2025", JUN)
    assert versions[1]["endedBy"] == "kb:services-2025"
    await _billing(acme, urn="kb:services-2025", at=JUN, tier=2)  # the same: no new version
    assert len(await _history(acme)) == 3
    assert (await acme(CHANGES, key="service:billing"))["changes"]["nodes"] == []


async def test_an_update_that_changes_nothing_records_nothing(acme: Api) -> None:
    await _billing(acme)
    answer = await acme(UPDATE, key="service:billing", set={"tier": 1}, unset=["gone"])
    assert answer["updateNode"]["changed"] == []
    assert len(await _history(acme)) == 2
    assert (await acme(CHANGES, key="service:billing"))["changes"]["nodes"] == []


async def test_history_pages_newest_first(acme: Api) -> None:
    await _billing(acme)
    for tier in (2, 3, 4):
        await acme(UPDATE, key="service:billing", set={"tier": tier})
    page = (await acme(HISTORY, key="service:billing", name="tier", first=2))["nodeHistory"]
    assert [v["value"] for v in page["nodes"]] == [4, 3] and page["hasNextPage"]
    rest = (
        await acme(HISTORY, key="service:billing", name="tier", first=2, after=page["endCursor"])
    )["nodeHistory"]
    assert [v["value"] for v in rest["nodes"]] == [2, 1] and not rest["hasNextPage"]


async def test_another_client_sees_none_of_it_and_cannot_correct_it(api: Api, acme: Api) -> None:
    await _billing(acme)
    await acme(UPDATE, key="service:billing", set={"owner": "team:payments"})
    globex = api.as_(OTHER)
    assert await _history(globex) == []
    assert (await globex(CHANGES, key="service:billing"))["changes"]["nodes"] == []
    mine = (await globex(UPDATE, key="service:billing", set={"owner": "x"}))["updateNode"]
    nobody = (await globex(UPDATE, key="service:nobody", set={"owner": "x"}))["updateNode"]
    assert (mine["code"], mine["field"]) == ("NOT_FOUND", "key")
    # The same answer as for a node that exists nowhere, apart from the key it names.
    assert mine["message"].replace("billing", "nobody") == nobody["message"]
    assert _values(await _history(acme))[0] == ("owner", "team:payments", True)


async def test_a_read_only_key_cannot_correct(api: Api, acme: Api) -> None:
    await _billing(acme)
    viewer = api.as_(Principal(key_id="ui-acme", scope=Scope("acme"), role=Role.UI))
    answer = (await viewer(UPDATE, key="service:billing", set={"tier": 9}))["updateNode"]
    assert answer["code"] == "OUT_OF_SCOPE"


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({}, "INVALID", "set"),
        ({"set": {}, "unset": []}, "INVALID", "set"),
        ({"set": ["tier"]}, "INVALID", "set"),
        ({"set": {"key": "service:x"}}, "INVALID", "set"),
        ({"unset": ["tier", "client"]}, "INVALID", "unset[1]"),
        ({"set": {" tier": 2}}, "INVALID", "set"),
        ({"set": {"tier": {"level": 2}}}, "INVALID", "set.tier"),
        ({"set": {"tier": None}}, "INVALID", "set.tier"),
        ({"set": {"tags": ["a", ["b"]]}}, "INVALID", "set.tags"),
        ({"set": {"tier": 2}, "unset": ["tier"]}, "INVALID", "unset[0]"),
        ({"set": {f"p{i}": i for i in range(101)}}, "TOO_LARGE", "set"),
        ({"set": {"note": "x" * 70_000}}, "TOO_LARGE", "set"),
        ({"set": {"tier": 2}, "reason": "r" * 1001}, "TOO_LARGE", "reason"),
        ({"set": {"tier": 2}, "at": "1800-01-01T00:00:00Z"}, "INVALID", "observedAt"),
        (
            {"set": {"token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}},
            "SENSITIVE_CONTENT",
            "set.token",
        ),
    ],
)
async def test_bad_input_is_a_typed_error_naming_the_field(
    acme: Api, arguments: dict[str, Any], code: str, field: str
) -> None:
    await _billing(acme)
    answer = (await acme(UPDATE, key="service:billing", **arguments))["updateNode"]
    assert (answer["code"], answer["field"]) == (code, field), answer
    assert len(await _history(acme)) == 2  # nothing was written


async def test_a_retraction_is_in_the_change_log_with_its_reason(api: Api, acme: Api) -> None:
    ingest = """mutation { ingest(input: {sourceUrn: "doc:db", kind: "note",
      content: "service:billing|database|db:postgres"}) { __typename } }"""
    assert (await acme(ingest))["ingest"]["__typename"] == "IngestSuccess"
    retract = """mutation { retractEdge(from: "service:billing", edgeType: "database",
      to: "db:postgres", reason: "Moved to MySQL") {
      __typename ... on RetractEdgeSuccess { retracted } } }"""
    assert (await acme(retract))["retractEdge"]["retracted"] is True
    [change] = (await acme(CHANGES, key="service:billing"))["changes"]["nodes"]
    held = {"from": "service:billing", "edgeType": "database", "to": "db:postgres"}
    assert change == {
        "itemKind": "EDGE",
        "itemId": "service:billing|database|db:postgres",
        "itemKey": "service:billing",
        "action": "RETRACT",
        "old": {**held, "current": True},
        "new": {**held, "current": False, "endedReason": "RETRACTED"},
        "reason": "Moved to MySQL",
        "changedBy": "agent-acme",
        "scope": {"clientId": "acme"},
    }
    assert (await api.as_(OTHER)(CHANGES, key="service:billing"))["changes"]["nodes"] == []
    degree = """query($at: DateTime) { node(key: "service:billing") {
      now: degree then: degree(asOf: $at) } }"""
    assert (await acme(degree, at="2000-01-01T00:00:00Z"))["node"] == {"now": 0, "then": 0}
    past = (await acme(HISTORY_OF_EDGE))["edgeHistory"][0]["validFrom"]
    assert (await acme(degree, at=past))["node"] == {"now": 0, "then": 1}


HISTORY_OF_EDGE = """query { edgeHistory(from: "service:billing", edgeType: "database") {
  validFrom } }"""


async def test_a_deleted_node_ends_its_values(acme: Api) -> None:
    await _billing(acme)
    purge = """mutation { purgeSource(sourceUrn: "kb:services") { __typename } }"""
    assert (await acme(purge))["purgeSource"]["__typename"] == "PurgeSuccess"
    versions = await _history(acme)
    assert [(v["name"], v["endedAt"] is not None, v["endedBy"]) for v in versions] == [
        ("tier", True, None),
        ("owner", True, None),
    ]


async def test_an_alias_merge_hands_the_history_to_the_canonical_key(api: Api, acme: Api) -> None:
    await _billing(acme)
    old = {"svc:billing-old": {"type": "svc", "properties": {"owner": "team:old", "pager": "p1"}}}
    answer = (await acme(METADATA, urn="kb:old", metadata=old, at=None))["ingestGraph"]
    assert answer["__typename"] == "IngestGraphSuccess", answer
    alias = """mutation { registerAlias(scope: {clientId: "acme"}, alias: "svc:billing-old",
      canonical: "service:billing") { __typename } }"""
    assert (await api(alias))["registerAlias"]["__typename"] == "RegisterAliasSuccess"
    current = {(v["name"], v["value"]) for v in await _history(acme) if v["endedAt"] is None}
    # The canonical node kept its own owner and took the alias's pager, as its vertex did.
    assert current == {("owner", "team:billing"), ("tier", 1), ("pager", "p1")}
    node = """query { node(key: "service:billing") { properties } }"""
    assert (await acme(node))["node"]["properties"] == {
        "owner": "team:billing",
        "tier": 1,
        "pager": "p1",
    }
