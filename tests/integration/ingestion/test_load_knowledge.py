"""loadKnowledge and ingestGraph's metadata section over GraphQL on the real stack."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST_GRAPH

pytestmark = pytest.mark.integration

ACME = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
BETA = Principal("beta", Scope("beta"), Role.AGENT)
BETA_WEB = Principal("beta-web", Scope("beta", "web"), Role.AGENT)
# A generated-looking AWS key id (the documented example is a placeholder and passes).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"

LOAD = """mutation L($json: JSON!, $urn: String!) {
  loadKnowledge(json: $json, sourceUrn: $urn) {
    __typename
    ... on IngestGraphSuccess { status nodes edges { from edgeType to } chunks { id }
                                rejected { item index reason } }
    ... on Error { code field } } }"""
NODES = """query N($keys: [String!]!) { nodes(keys: $keys) { key type properties } }"""
SEARCH = """query S($q: String!) {
  search(query: $q, limit: 10) { ... on SearchSuccess { hits { chunk { content infoType } } } } }"""

FILE: dict[str, Any] = {
    "metadata": {
        "user:john": {"type": "user", "properties": {"name": "John", "team": "auth"}},
        "auth": {"type": "service", "properties": {"tier": 1}},
        "bad": {"type": "service", "properties": {"key": "reserved"}},
    },
    "pieces": [
        {"id": "p1", "content": "John owns the auth service.", "infoType": "context",
         "knowledgeType": "FACT", "tags": ["ownership"]},
        {"id": "p2", "content": ""},
    ],
    "graph": {
        "nodes": [{"id": "lib:jwt", "type": "library"}],
        "edges": [
            {"source": "user:john", "relation": "OWNS", "target": "service:auth",
             "evidence": ["p1"]},
            {"source": "service:auth", "relation": "USES", "target": "lib:jwt",
             "evidence": ["p2"]},
        ],
    },
}  # fmt: skip


async def _load(api: Api, document: object, urn: str = "kb:team") -> dict[str, Any]:
    found: dict[str, Any] = (await api(LOAD, json=document, urn=urn))["loadKnowledge"]
    return found


async def _nodes(api: Api, *keys: str) -> list[dict[str, Any] | None]:
    found: list[dict[str, Any] | None] = (await api(NODES, keys=list(keys)))["nodes"]
    return found


async def test_a_file_loads_what_is_valid_and_reports_the_rest(api: Api) -> None:
    acme = api.as_(ACME)
    loaded = await _load(acme, FILE)
    assert loaded["__typename"] == "IngestGraphSuccess" and loaded["status"] == "INDEXED"
    assert loaded["nodes"] == ["lib:jwt", "service:auth", "user:john"]
    assert loaded["edges"] == [{"from": "user:john", "edgeType": "owns", "to": "service:auth"}]
    assert [(r["item"], r["index"]) for r in loaded["rejected"]] == [
        ("EDGE", 1), ("METADATA", 2), ("PIECE", 1),
    ]  # fmt: skip
    assert loaded["rejected"][1]["reason"] == "bad: reserved property key"
    john, auth = await _nodes(acme, "user:john", "service:auth")
    assert john is not None and auth is not None
    assert (john["type"], john["properties"]) == ("user", {"name": "John", "team": "auth"})
    assert (auth["type"], auth["properties"]) == ("service", {"tier": 1})
    hits = (await acme(SEARCH, q="auth service"))["search"]["hits"]
    assert {"content": "John owns the auth service.", "infoType": "context"} in [
        h["chunk"] for h in hits
    ]
    assert (await _load(acme, FILE))["status"] == "SKIPPED_DUPLICATE"


async def test_a_file_that_is_not_one_is_refused_and_a_credential_refuses_it_whole(
    api: Api,
) -> None:
    acme = api.as_(ACME)
    assert await _load(acme, ["not", "an", "object"]) == {
        "__typename": "ValidationError", "code": "INVALID", "field": "json",
    }  # fmt: skip
    assert (await _load(acme, {"pieces": [], "extras": {}}))["field"] == "json.extras"
    leaked = {"metadata": {"user:john": {"properties": {"note": f"key {CREDENTIAL}"}}}}
    refused = await _load(acme, leaked)
    assert refused["__typename"] == "SensitiveContentError"
    assert refused["field"] == "metadata[0].properties.note"
    assert await _nodes(acme, "user:john") == [None]


async def test_ingest_graph_takes_the_metadata_section(api: Api) -> None:
    acme = api.as_(ACME)
    done = await acme(
        INGEST_GRAPH,
        input={"sourceUrn": "kb:meta", "nodes": [{"key": "team:auth", "properties": {"a": 1}}],
               "metadata": {"team:auth": {"type": "squad", "properties": {"b": 2}},
                            "jira:t-1": {"properties": {"title": "Login bug"}}}},
    )  # fmt: skip
    assert done["ingestGraph"]["__typename"] == "IngestGraphSuccess"
    team, ticket = await _nodes(acme, "team:auth", "jira:t-1")
    assert team == {"key": "team:auth", "type": "squad", "properties": {"a": 1, "b": 2}}
    assert ticket == {"key": "jira:t-1", "type": "jira", "properties": {"title": "Login bug"}}
    wrong = await acme(INGEST_GRAPH, input={"sourceUrn": "kb:m2", "metadata": [1]})
    assert wrong["ingestGraph"]["__typename"] == "ValidationError"


@pytest.mark.parametrize("reader", [BETA_WEB, BETA], ids=["beta-project", "beta-client-wide"])
async def test_another_client_sees_nothing_that_was_loaded(api: Api, reader: Principal) -> None:
    await _load(api.as_(ACME), FILE)
    beta = api.as_(reader)
    assert await _nodes(beta, "user:john", "service:auth", "lib:jwt") == [None, None, None]
    assert (await beta(SEARCH, q="auth service"))["search"]["hits"] == []
