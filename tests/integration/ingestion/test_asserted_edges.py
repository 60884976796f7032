"""Edges with properties, and edges no text states, on the real stack: an edge citing no
piece is its source's assertion (ASSERTED evidence, with the writer and the time) beside
text evidence; each source's properties are kept apart and the newest by observedAt is
shown; purging a source removes its assertion and properties, and the edge with its last
evidence; a credential in edge properties is refused, naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST_GRAPH

pytestmark = pytest.mark.integration

ACME = Principal("acme-writer", Scope("acme", "web"), Role.AGENT)
BETA = Principal("beta-reader", Scope("beta", "web"), Role.AGENT)
# A generated-looking AWS key id (the documented example is a placeholder and passes).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"

NODE = """query N($key: String!) {
  node(key: $key) {
    edges {
      edgeType to { key } evidenceCount confidence evidenceKinds properties validFrom validTo
      assertedBy { sourceUrn writer assertedAt } evidence { content } } } }"""
PURGE = """mutation($urn: String!) { purgeSource(sourceUrn: $urn) { __typename } }"""
LOAD = """mutation L($json: JSON!, $urn: String!) {
  loadKnowledge(json: $json, sourceUrn: $urn) {
    __typename ... on IngestGraphSuccess { rejected { item reason } } ... on Error { field } } }"""
NODES = [{"key": "person:ann"}, {"key": "team:core"}]


def _chart(urn: str, observed: str, properties: dict[str, Any]) -> dict[str, Any]:
    """An org chart: two nodes and an edge no text states."""
    edge = {"from": "person:ann", "edgeType": "MEMBER_OF", "to": "team:core"}
    return {
        "sourceUrn": urn,
        "nodes": NODES,
        "observedAt": observed,
        "edges": [{**edge, "properties": properties}],
    }


def _wiki(observed: str) -> dict[str, Any]:
    """A page stating the same edge, with properties of its own."""
    return {
        "sourceUrn": "wiki:core",
        "observedAt": observed,
        "pieces": [{"ref": "p", "content": "Ann is a member of the core team."}],
        "nodes": NODES,
        "edges": [
            {
                "from": "person:ann",
                "edgeType": "MEMBER_OF",
                "to": "team:core",
                "evidence": ["p"],
                "properties": {"role": "lead", "piece_id": "p"},
            },
        ],
    }


async def _edge(api: Api) -> dict[str, Any] | None:
    node = (await api(NODE, key="person:ann"))["node"]
    if node is None or not node["edges"]:
        return None
    [edge] = node["edges"]
    found: dict[str, Any] = edge
    return found


async def _write(api: Api, payload: dict[str, Any]) -> dict[str, Any]:
    done: dict[str, Any] = (await api(INGEST_GRAPH, input=payload))["ingestGraph"]
    assert done["__typename"] == "IngestGraphSuccess" and done["rejected"] == [], done
    return done


async def test_an_edge_no_text_states_is_asserted_by_its_source(api: Api) -> None:
    acme = api.as_(ACME)
    chart = _chart("org:chart", "2024-01-01T00:00:00Z", {"since": 2019})
    done = await _write(acme, chart)
    assert done["edges"] == [{"from": "person:ann", "edgeType": "member_of", "to": "team:core"}]
    edge = await _edge(acme)
    assert edge is not None
    [asserted] = edge["assertedBy"]
    assert (asserted["sourceUrn"], asserted["writer"]) == ("org:chart", "acme-writer")
    assert asserted["assertedAt"] is not None
    assert (edge["evidenceKinds"], edge["evidenceCount"], edge["confidence"]) == (
        ["ASSERTED"],
        1,
        0.5,
    )
    assert edge["evidence"] == [] and edge["properties"] == {"since": 2019}
    # It holds from the time the chart says it was true.
    assert edge["validTo"] is None and edge["validFrom"] is not None
    assert (await acme(INGEST_GRAPH, input=chart))["ingestGraph"]["status"] == "SKIPPED_DUPLICATE"
    assert await _edge(api.as_(BETA)) is None


async def test_each_source_keeps_its_properties_and_purging_takes_back_its_evidence(
    api: Api,
) -> None:
    acme = api.as_(ACME)
    await _write(acme, _chart("org:chart", "2024-01-01T00:00:00Z", {"since": 2019}))
    await _write(acme, _wiki("2025-01-01T00:00:00Z"))
    both = await _edge(acme)
    assert both is not None
    assert (both["evidenceKinds"], both["evidenceCount"]) == (["TEXT", "ASSERTED"], 2)
    assert both["confidence"] == pytest.approx(2 / 3)
    # The page's piece_id is its evidence, not a property; the page is the newest source.
    assert both["properties"] == {"role": "lead"}
    assert both["evidence"] == [{"content": "Ann is a member of the core team."}]
    await _write(acme, _chart("org:chart", "2026-01-01T00:00:00Z", {"since": 2020}))
    newer = await _edge(acme)
    assert newer is not None and newer["properties"] == {"since": 2020}
    assert [a["sourceUrn"] for a in newer["assertedBy"]] == ["org:chart"]
    assert (await acme(PURGE, urn="org:chart"))["purgeSource"]["__typename"] == "PurgeSuccess"
    text_only = await _edge(acme)
    assert text_only is not None
    assert (text_only["evidenceKinds"], text_only["assertedBy"]) == (["TEXT"], [])
    assert (text_only["evidenceCount"], text_only["properties"]) == (1, {"role": "lead"})
    await _write(acme, _chart("org:chart", "2026-01-01T00:00:00Z", {"since": 2020}))
    await acme(PURGE, urn="wiki:core")
    asserted_only = await _edge(acme)
    assert asserted_only is not None and asserted_only["evidenceKinds"] == ["ASSERTED"]
    await acme(PURGE, urn="org:chart")
    assert await _edge(acme) is None


async def test_a_credential_in_edge_properties_refuses_the_write(api: Api) -> None:
    acme = api.as_(ACME)
    leaky = _chart("org:leaky", "2024-01-01T00:00:00Z", {"note": f"key {CREDENTIAL}"})
    refused = (await acme(INGEST_GRAPH, input=leaky))["ingestGraph"]
    assert refused["__typename"] == "SensitiveContentError"
    file = {
        "graph": {
            "nodes": [{"node_id": "person:ann"}, {"node_id": "team:core"}],
            "edges": [
                {
                    "source_id": "person:ann",
                    "target_id": "team:core",
                    "edge_type": "MEMBER_OF",
                    "properties": {"badge": CREDENTIAL},
                }
            ],
        }
    }
    loaded = (await acme(LOAD, json=file, urn="kb:leaky"))["loadKnowledge"]
    assert loaded == {"__typename": "SensitiveContentError", "field": "edges[0].properties.badge"}
    assert await _edge(acme) is None
    not_object = _chart("org:odd", "2024-01-01T00:00:00Z", {})
    not_object["edges"][0]["properties"] = [1, 2]
    odd = (await acme(INGEST_GRAPH, input=not_object))["ingestGraph"]
    assert odd == {
        "__typename": "ValidationError",
        "field": "edges[0].properties",
        "message": "edges[0].properties must be a JSON object",
    }


DEFINE = """mutation {
  defineRelation(edgeType: "member_of", cardinality: ONE, description: "d",
                 scope: {clientId: "acme"}) { __typename } }"""
AT = """query A($at: DateTime!) { node(key: "person:ann", asOf: $at) { edges { to { key } } } }"""


async def test_an_assertion_takes_its_place_in_the_timeline_of_a_relation_declared_one(
    api: Api,
) -> None:
    acme = api.as_(ACME)
    assert (await api(DEFINE))["defineRelation"]["__typename"] == "DefineRelationSuccess"
    await _write(acme, _chart("org:chart", "2024-01-01T00:00:00Z", {}))
    moved = _chart("org:chart-2025", "2025-01-01T00:00:00Z", {})
    moved["nodes"] = [{"key": "person:ann"}, {"key": "team:edge"}]
    moved["edges"][0]["to"] = "team:edge"
    await _write(acme, moved)
    now = await _edge(acme)
    assert now is not None and now["to"]["key"] == "team:edge"
    assert now["validFrom"].startswith("2025-01-01")
    then = (await acme(AT, at="2024-06-01T00:00:00Z"))["node"]["edges"]
    assert then == [{"to": {"key": "team:core"}}]


SUPERSEDE = """mutation($urn: String!, $old: [String!]!) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: "Ann left the core team.",
                 supersedes: $old}) { __typename } }"""
HISTORY = """query { node(key: "person:ann") {
  edges(asOf: "2024-06-01T00:00:00Z") { to { key } validTo endedReason endedBy } } }"""


async def test_a_source_that_supersedes_an_assertion_ends_its_edge(api: Api) -> None:
    acme = api.as_(ACME)
    await _write(acme, _chart("org:chart", "2024-01-01T00:00:00Z", {}))
    done = await acme(SUPERSEDE, urn="note:left", old=["org:chart"])
    assert done["ingest"]["__typename"] == "IngestSuccess"
    assert await _edge(acme) is None
    [ended] = (await acme(HISTORY))["node"]["edges"]
    assert (ended["to"]["key"], ended["endedReason"], ended["endedBy"]) == (
        "team:core",
        "SUPERSEDED",
        "note:left",
    )
    assert ended["validTo"] is not None
