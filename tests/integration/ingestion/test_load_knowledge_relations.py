"""A knowledge file's relation declarations on the real stack, through loadKnowledge: a ONE
declared in the file governs the file's own edges (the older target ends), a bad
declaration names its field, and a key that may not define relations is refused with
nothing of the file written."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.relations import MAX_RELATIONS
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Principal("acme-agent", Scope("acme"), Role.AGENT)

INGEST = """
mutation($content: String!) {
  ingest(input: {sourceUrn: "doc:old", kind: "note", content: $content,
                 observedAt: "2024-01-01T00:00:00Z"}) { __typename }
}"""
LOAD = """
mutation($file: JSON!) {
  loadKnowledge(json: $file, sourceUrn: "kb:billing", observedAt: "2025-06-01T00:00:00Z") {
    __typename
    ... on IngestGraphSuccess { status edges { from edgeType to } }
    ... on Error { code field message }
  }
}"""
DEFINE = """
mutation { defineRelation(edgeType: "database", cardinality: ONE) {
  __typename ... on Error { code } } }"""
STATE = """
query {
  relations { edgeType cardinality description definedBy }
  node(key: "service:billing") { edges(direction: OUT) { to { key } } }
  edgeHistory(from: "service:billing", edgeType: "database") { to validTo endedReason endedBy }
  search(query: "billing postgres", mode: KEYWORD, limit: 5) {
    ... on SearchSuccess { hits { chunk { sourceUrn } } } }
}"""


def knowledge(cardinality: object = "ONE") -> dict[str, Any]:
    return {
        "pieces": [{"id": "p1", "content": "Billing moved to Postgres."}],
        "graph": {
            "nodes": [{"id": "service:billing"}, {"id": "db:postgres"}],
            "edges": [
                {
                    "source": "service:billing",
                    "relation": "database",
                    "target": "db:postgres",
                    "evidence": ["p1"],
                }
            ],
        },
        "relations": [
            {
                "edgeType": "database",
                "cardinality": cardinality,
                "description": "The database a service stores in",
            }
        ],
    }


async def _old(api: Api) -> None:
    content = "Billing keeps invoices.\n\nservice:billing|database|db:mysql"
    assert (await api(INGEST, content=content))["ingest"]["__typename"] == "IngestSuccess"


async def test_a_one_declared_in_the_file_ends_the_older_target(api: Api) -> None:
    acme = api.as_(ACME)
    await _old(acme)
    loaded = (await acme(LOAD, file=knowledge()))["loadKnowledge"]
    assert loaded["status"] == "INDEXED", loaded
    assert loaded["edges"] == [
        {"from": "service:billing", "edgeType": "database", "to": "db:postgres"}
    ]
    state = await acme(STATE)
    assert state["relations"] == [
        {
            "edgeType": "database",
            "cardinality": "ONE",
            "description": "The database a service stores in",
            "definedBy": "acme-agent",
        }
    ]
    assert state["node"]["edges"] == [{"to": {"key": "db:postgres"}}]
    assert state["edgeHistory"] == [
        {
            "to": "db:mysql",
            "validTo": "2025-06-01T00:00:00+00:00",
            "endedReason": "SUPERSEDED",
            "endedBy": "kb:billing",
        },
        {"to": "db:postgres", "validTo": None, "endedReason": None, "endedBy": None},
    ]
    # The same file again is a duplicate; declaring MANY instead loads it again.
    assert (await acme(LOAD, file=knowledge()))["loadKnowledge"]["status"] == "SKIPPED_DUPLICATE"
    assert (await acme(LOAD, file=knowledge("many")))["loadKnowledge"]["status"] == "INDEXED"
    state = await acme(STATE)
    assert state["relations"][0]["cardinality"] == "MANY"
    assert len(state["node"]["edges"]) == 2


async def test_an_invalid_cardinality_names_the_field_and_writes_nothing(api: Api) -> None:
    acme = api.as_(ACME)
    refused = (await acme(LOAD, file=knowledge("SOME")))["loadKnowledge"]
    assert refused["__typename"] == "ValidationError"
    assert refused["field"] == "json.relations[0].cardinality"
    state = await acme(STATE)
    assert (state["relations"], state["node"], state["search"]["hits"]) == ([], None, [])


@pytest.mark.parametrize(
    "caller",
    [
        Principal("acme-web", Scope("acme", "web"), Role.AGENT),
        Principal("acme-ui", Scope("acme"), Role.UI),
    ],
    ids=["project-key", "read-only-key"],
)
async def test_a_key_that_may_not_define_relations_is_refused_whole(
    api: Api, caller: Principal
) -> None:
    acme, refused_key = api.as_(ACME), api.as_(caller)
    await _old(acme)
    # The same typed error defineRelation gives this key.
    assert (await refused_key(DEFINE))["defineRelation"]["__typename"] == "ScopeError"
    refused = (await refused_key(LOAD, file=knowledge()))["loadKnowledge"]
    assert (refused["__typename"], refused["code"]) == ("ScopeError", "OUT_OF_SCOPE")
    state = await acme(STATE)
    assert state["relations"] == []
    assert state["node"]["edges"] == [{"to": {"key": "db:mysql"}}]
    assert "kb:billing" not in [h["chunk"]["sourceUrn"] for h in state["search"]["hits"]]


async def test_a_client_full_of_relations_refuses_the_file_in_its_transaction(
    api: Api, pool: asyncpg.Pool
) -> None:
    await pool.execute(
        """INSERT INTO relations (client_id, edge_type, cardinality, defined_by)
           SELECT 'acme', 'r' || n, 'MANY', 'seed' FROM generate_series(1, $1) AS n""",
        MAX_RELATIONS,
    )
    refused = (await api.as_(ACME)(LOAD, file=knowledge()))["loadKnowledge"]
    assert (refused["code"], refused["field"]) == ("TOO_LARGE", "json.relations")
    # Found only inside the write: the file's pieces and edges rolled back with it.
    state = await api.as_(ACME)(STATE)
    assert (state["node"], state["search"]["hits"]) == (None, [])
    assert await pool.fetchval("SELECT count(*) FROM relations") == MAX_RELATIONS
