"""loadKnowledge on the real stack with a file in the design's format (003 §Path B): the
design's own example lands item by item, and a piece's entity_id links it to its entity
both ways with no edge citing it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.design_knowledge import DESIGN_EXAMPLE
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
BETA = Principal("beta-web", Scope("beta", "web"), Role.AGENT)

LOAD = """mutation L($json: JSON!, $urn: String!) {
  loadKnowledge(json: $json, sourceUrn: $urn) {
    __typename
    ... on IngestGraphSuccess { status nodes edges { from edgeType to } rejected { item } }
    ... on Error { code field } } }"""
NODE = """query N($key: String!) {
  node(key: $key) {
    key type properties
    chunks { content knowledgeType infoType tags graphRefs metadata }
    edges { edgeType from { key } to { key } evidence { content } } } }"""
PIECE = "Initialize transient LES from converged RANS -- cuts spin-up by ~40%"


async def _node(api: Api, key: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = (await api(NODE, key=key))["node"]
    return found


async def test_the_design_example_loads_every_item(api: Api) -> None:
    acme = api.as_(ACME)
    loaded = (await acme(LOAD, json=DESIGN_EXAMPLE, urn="kb:alice"))["loadKnowledge"]
    assert loaded["__typename"] == "IngestGraphSuccess" and loaded["rejected"] == []
    assert loaded["nodes"] == ["technique:les", "user:alice"]
    edge = {"from": "user:alice", "edgeType": "specializes_in", "to": "technique:les"}
    assert loaded["edges"] == [edge]
    alice, les = await _node(acme, "user:alice"), await _node(acme, "technique:les")
    assert alice is not None and les is not None
    assert (alice["type"], alice["properties"]) == (
        "user",
        {"label": "Alice", "specialization": "turbomachinery", "team": "aero"},
    )
    assert (les["type"], les["properties"]) == ("technique", {"label": "LES"})
    [chunk] = alice["chunks"]
    assert (chunk["content"], chunk["knowledgeType"], chunk["infoType"]) == (
        PIECE,
        "PROCEDURE",
        "instructions",
    )
    assert chunk["tags"] == ["les", "initialization", "rans"]
    assert chunk["metadata"] == {"pieceRef": "les-rans-init", "entityKey": "user:alice"}
    [stored] = alice["edges"]
    assert (stored["from"]["key"], stored["edgeType"], stored["to"]["key"]) == (
        "user:alice",
        "specializes_in",
        "technique:les",
    )
    assert stored["evidence"] == [{"content": PIECE}]
    assert await _node(api.as_(BETA), "user:alice") is None


async def test_an_entity_id_links_a_piece_no_edge_cites_both_ways(api: Api) -> None:
    acme = api.as_(ACME)
    document = copy.deepcopy(DESIGN_EXAMPLE)
    del document["graph"]
    document["pieces"][0]["entity_id"] = "technique:rans"
    loaded = (await acme(LOAD, json=document, urn="kb:rans"))["loadKnowledge"]
    assert loaded["rejected"] == [] and loaded["edges"] == []
    rans = await _node(acme, "technique:rans")
    assert rans is not None and rans["type"] == "technique" and rans["edges"] == []
    [chunk] = rans["chunks"]
    assert chunk["content"] == PIECE and chunk["graphRefs"] == ["technique:rans"]
    assert chunk["metadata"]["entityKey"] == "technique:rans"
