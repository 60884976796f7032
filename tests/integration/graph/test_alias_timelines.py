"""An alias merge settles the timelines it joins: two keys of one service, each with a
current value of a relation declared ONE, become one node with one current value (the
newer by observedAt), and what was said of the alias (a retraction) carries over."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.graphql_api import Api
from tests.support.ingest_documents import REGISTER

pytestmark = pytest.mark.integration

INGEST = """
mutation($urn: String!, $content: String!, $at: DateTime) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: $content, observedAt: $at,
                 scope: {clientId: "acme"}}) {
    __typename ... on Error { code field message }
  }
}"""
DEFINE = """
mutation {
  defineRelation(edgeType: "database", cardinality: ONE, scope: {clientId: "acme"}) {
    __typename ... on Error { code field message }
  }
}"""
EDGES = """
query($key: String!) {
  node(key: $key, scope: {clientId: "acme"}) {
    edges(direction: OUT) { edgeType to { key } validTo endedReason }
  }
}"""
HISTORY = """
query($type: String!) {
  edgeHistory(from: "service:billing", edgeType: $type, scope: {clientId: "acme"}) {
    to validTo endedReason
  }
}"""
RETRACT = """
mutation($from: String!, $to: String!) {
  retractEdge(from: $from, edgeType: "depends_on", to: $to, scope: {clientId: "acme"}) {
    __typename ... on Error { code field message }
  }
}"""


async def _say(api: Api, urn: str, line: str, at: str) -> None:
    data = await api(INGEST, urn=urn, content=f"The billing service.\n\n{line}", at=at)
    assert data["ingest"]["__typename"] == "IngestSuccess", data


async def _edges(api: Api, edge_type: str) -> list[dict[str, Any]]:
    node = (await api(EDGES, key="service:billing"))["node"]
    return sorted(
        (e for e in node["edges"] if e["edgeType"] == edge_type), key=lambda e: e["to"]["key"]
    )


async def _history(api: Api, edge_type: str) -> list[tuple[str, bool, str | None]]:
    timeline = (await api(HISTORY, type=edge_type))["edgeHistory"]
    return [(i["to"], i["validTo"] is None, i["endedReason"]) for i in timeline]


async def test_a_merge_ends_the_older_value_of_a_one_relation(api: Api, clean: None) -> None:
    assert (await api(DEFINE))["defineRelation"]["__typename"] == "DefineRelationSuccess"
    await _say(api, "doc:old", "service:billing|database|db:mysql", "2024-01-01T00:00:00Z")
    await _say(api, "doc:new", "service:bill|database|db:postgres", "2025-06-01T00:00:00Z")
    merged = await api(REGISTER, alias="service:bill", canonical="service:billing")
    assert merged["registerAlias"]["__typename"] == "RegisterAliasSuccess", merged
    assert [e["to"]["key"] for e in await _edges(api, "database")] == ["db:postgres"]
    assert await _history(api, "database") == [
        ("db:mysql", False, "SUPERSEDED"),
        ("db:postgres", True, None),
    ]


async def test_a_retraction_of_the_alias_edge_holds_after_the_merge(api: Api, clean: None) -> None:
    await _say(api, "doc:a", "service:bill|depends_on|service:ledger", "2024-01-01T00:00:00Z")
    retracted = await api(RETRACT, **{"from": "service:bill", "to": "service:ledger"})
    assert retracted["retractEdge"]["__typename"] == "RetractEdgeSuccess", retracted
    # The canonical key asserts the same edge again, older than the retraction: still ended.
    await _say(api, "doc:b", "service:billing|depends_on|service:ledger", "2023-01-01T00:00:00Z")
    await api(REGISTER, alias="service:bill", canonical="service:billing")
    assert await _edges(api, "depends_on") == []
    assert await _history(api, "depends_on") == [("service:ledger", False, "RETRACTED")]
