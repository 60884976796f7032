"""`search`'s `filters` and `vectorWeight` through GraphQL variables: what each filter keeps,
and bad values as typed errors naming the argument, before anything is embedded."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.ingest_documents import ingest_all

pytestmark = pytest.mark.integration

ACME = {"clientId": "acme"}
DOCS: list[dict[str, Any]] = [
    {
        "sourceUrn": "jira:PAY-1",
        "kind": "jira_issue",
        "infoType": "context",
        "sourceKind": "jira",
        "connectionId": "jira-main",
        "mainNodeKey": "service:billing",
        "observedAt": "2026-03-01T00:00:00Z",
        "content": "The retry loop drops pending invoices under load after a deploy.",
    },
    {
        "sourceUrn": "wiki:retry",
        "kind": "wiki_page",
        "infoType": "instructions",
        "sourceKind": "wiki",
        "connectionId": "wiki-main",
        "mainNodeKey": "service:worker",
        "observedAt": "2026-05-01T00:00:00Z",
        "content": "To restart the retry loop, drain the queue first, then redeploy the worker.",
    },
    {
        "sourceUrn": "note:1",
        "kind": "note",
        "content": "The retry loop of the mailer has no backoff at all.",
    },
]

SEARCH = """
query($q: String!, $mode: SearchMode! = HYBRID, $filters: SearchFiltersInput,
      $vectorWeight: Float, $scope: ScopeInput) {
  search(query: $q, mode: $mode, filters: $filters, vectorWeight: $vectorWeight,
         scope: $scope) {
    __typename
    ... on SearchSuccess { hits { score sourceUrn } }
    ... on ValidationError { code field }
  }
}"""


REGISTER = """mutation($id: String!) { registerConnection(input: {connectionId: $id,
    authority: "custom", label: "Source", scope: {clientId: "acme"}}) { __typename } }"""


@pytest.fixture
async def seeded(api: Api) -> Api:
    for connection in ("jira-main", "wiki-main"):
        registered = await api(REGISTER, id=connection)
        assert registered["registerConnection"]["__typename"] == "RegisterConnectionSuccess"
    await ingest_all(api, [{**doc, "scope": ACME} for doc in DOCS])
    return api


async def found(api: Api, **variables: Any) -> set[str]:
    result = (await api(SEARCH, q="retry loop", scope=ACME, **variables))["search"]
    assert result["__typename"] == "SearchSuccess", result
    return {hit["sourceUrn"] for hit in result["hits"]}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, {"jira:PAY-1", "wiki:retry", "note:1"}),
        ({"infoTypes": ["instructions"]}, {"wiki:retry"}),
        ({"sourceKinds": ["jira", "wiki"]}, {"jira:PAY-1", "wiki:retry"}),
        ({"connectionIds": ["jira-main"]}, {"jira:PAY-1"}),
        ({"entityKeys": ["service:worker"]}, {"wiki:retry"}),
        ({"entityKeys": ["Service:Billing"]}, {"jira:PAY-1"}),  # keys are canonicalized
        ({"observedAfter": "2026-04-01T00:00:00Z"}, {"wiki:retry"}),
        ({"observedBefore": "2026-04-01T00:00:00Z"}, {"jira:PAY-1"}),
        ({"createdAfter": "2020-01-01T00:00:00"}, {"jira:PAY-1", "wiki:retry", "note:1"}),
        ({"createdBefore": "2020-01-01T00:00:00Z"}, set()),
        ({"connectionIds": ["no-such-connection"]}, set()),
    ],
)
@pytest.mark.parametrize("mode", ["HYBRID", "VECTOR", "KEYWORD"])
async def test_each_filter_keeps_what_it_names(
    seeded: Api, mode: str, filters: dict[str, Any], expected: set[str]
) -> None:
    assert await found(seeded, mode=mode, filters=filters) == expected


async def test_vector_weight_weighs_hybrid_lists(seeded: Api) -> None:
    keyword = await seeded(SEARCH, q="retry loop", mode="KEYWORD", scope=ACME)
    hybrid = await seeded(SEARCH, q="retry loop", vectorWeight=0.0, scope=ACME)
    # Weight 0: the vector list counts for nothing, so HYBRID scores are KEYWORD's.
    assert [(h["sourceUrn"], h["score"]) for h in hybrid["search"]["hits"]] == [
        (h["sourceUrn"], h["score"]) for h in keyword["search"]["hits"]
    ]


@pytest.mark.parametrize(
    ("variables", "field"),
    [
        ({"vectorWeight": 1.5}, "vectorWeight"),
        ({"vectorWeight": -0.1}, "vectorWeight"),
        (
            {
                "filters": {
                    "createdAfter": "2026-02-01T00:00:00Z",
                    "createdBefore": "2026-01-01T00:00:00Z",
                }
            },
            "createdAfter",
        ),
        (
            {
                "filters": {
                    "observedAfter": "2026-02-01T00:00:00Z",
                    "observedBefore": "2026-02-01T00:00:00Z",
                }
            },
            "observedAfter",
        ),
        ({"filters": {"infoTypes": ["con\u0001text"]}}, "infoTypes"),
        ({"filters": {"sourceKinds": ["x" * 201]}}, "sourceKinds"),
        ({"filters": {"connectionIds": [""]}}, "connectionIds"),
        ({"filters": {"entityKeys": ["no key"]}}, "entityKeys"),
    ],
)
async def test_bad_filter_values_are_typed_errors_naming_the_argument(
    seeded: Api, embedder: CountingEmbedder, variables: dict[str, Any], field: str
) -> None:
    calls = embedder.calls
    result = (await seeded(SEARCH, q="retry loop", scope=ACME, **variables))["search"]
    assert result == {"__typename": "ValidationError", "code": "INVALID", "field": field}
    assert embedder.calls == calls
