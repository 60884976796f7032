"""`findNodes` on the real stack: what a person types finds the node, scoped, ranked, checked."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.graph.find import find_query
from tests.support.graph_data import scope_input, write_graph
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

FIND = """
query($q: String!, $types: [String!], $limit: Int! = 20, $scope: ScopeInput) {
  findNodes(query: $q, types: $types, limit: $limit, scope: $scope) {
    __typename
    ... on FoundNodes {
      matches {
        key type label score exact matchedOn
        scope { clientId projectId groupId }
        node { key properties degree }
      }
    }
    ... on Error { code field message }
  }
}
"""

ACME = Scope("acme")
WEB = Scope("acme", "web", "frontend")
API = Scope("acme", "api", "backend")
GLOBEX = Scope("globex")


async def seed(api: Api) -> None:
    await write_graph(
        api,
        ACME,
        [
            ("service:billing-svc", "depends_on", "database:postgres"),
            ("person:alice-chen", "owns", "service:billing-svc"),
            ("person:alice", "owns", "service:auth"),
            ("service:invoices", "calls", "service:billing-svc"),
        ],
        nodes={
            "service:billing-svc": {"description": "Charges customers every month."},
            "person:alice-chen": {"name": "Alice Chen"},
            "person:alice": {"name": "Alice"},
            "database:postgres": {"label": "Postgres 17"},
            "service:invoices": {"description": "Renders the billing service's invoices."},
        },
    )
    await write_graph(api, WEB, [("page:checkout", "uses", "service:billing-svc")])
    await write_graph(
        api,
        API,
        [("service:billing-svc", "owned_by", "team:payments")],
        nodes={"service:billing-svc": {"name": "Billing (api view)"}},
    )
    await write_graph(
        api,
        GLOBEX,
        [("service:billing-secret", "calls", "person:alice-globex")],
        nodes={"person:alice-globex": {"name": "Alice"}},
    )


async def find(api: Api, query: str, reader: Scope = ACME, **variables: Any) -> dict[str, Any]:
    data = await api(FIND, q=query, scope=scope_input(reader), **variables)
    result: dict[str, Any] = data["findNodes"]
    return result


def keys(result: dict[str, Any]) -> list[str]:
    return [m["key"] for m in result["matches"]]


async def test_a_spelling_with_spaces_finds_the_service_key(api: Api) -> None:
    await seed(api)
    result = await find(api, "billing svc", reader=WEB)
    assert result["__typename"] == "FoundNodes"
    top = result["matches"][0]
    assert top["key"] == "service:billing-svc"
    assert top["type"] == "service" and top["matchedOn"] == "KEY" and not top["exact"]
    assert 0.5 < top["score"] < 1
    # The web reader sees the client-wide vertex (its own has no properties), never the api
    # project's: no name, so the label is the key's id part.
    assert top["label"] == "billing-svc"
    assert top["scope"] == scope_input(WEB)
    assert top["node"]["properties"]["description"] == "Charges customers every month."


async def test_a_typo_still_finds_the_node(api: Api) -> None:
    await seed(api)
    assert keys(await find(api, "biling svc"))[0] == "service:billing-svc"
    assert keys(await find(api, "postgress"))[0] == "database:postgres"


async def test_exact_name_comes_first_then_longer_names(api: Api) -> None:
    await seed(api)
    result = await find(api, "alice")
    assert keys(result)[:2] == ["person:alice", "person:alice-chen"]
    first, second = result["matches"][:2]
    assert first["exact"] and first["score"] == 1.0 and first["label"] == "Alice"
    assert not second["exact"] and second["score"] < 1
    assert "person:alice-globex" not in keys(result)  # another client's node


async def test_an_exact_key_comes_first_and_aliases_resolve(api: Api) -> None:
    await seed(api)
    result = await find(api, "Database::Postgres")
    assert result["matches"][0]["key"] == "database:postgres"
    assert result["matches"][0]["exact"] and result["matches"][0]["matchedOn"] == "KEY"


async def test_a_description_matches_when_names_do_not(api: Api) -> None:
    await seed(api)
    result = await find(api, "charges customers")
    assert keys(result)[0] == "service:billing-svc"
    assert result["matches"][0]["matchedOn"] == "TEXT"


async def test_types_filter_and_limit(api: Api) -> None:
    await seed(api)
    assert keys(await find(api, "billing", types=["Person"])) == []
    only = await find(api, "billing", types=["service"], limit=1)
    assert keys(only) == ["service:billing-svc"]
    assert keys(await find(api, "billing", types=[])) == []


async def test_the_most_specific_vertex_wins_and_other_projects_stay_hidden(api: Api) -> None:
    await seed(api)
    result = await find(api, "billing svc", reader=API)
    top = result["matches"][0]
    assert top["label"] == "Billing (api view)" and top["scope"] == scope_input(API)
    assert "page:checkout" not in keys(await find(api, "checkout", reader=API))
    assert keys(await find(api, "checkout", reader=WEB)) == ["page:checkout"]


async def test_the_key_scope_bounds_what_is_found(api: Api) -> None:
    await seed(api)
    globex = api.as_(Principal(key_id="g", scope=GLOBEX, role=Role.UI))
    data = await globex(FIND, q="alice")
    assert keys(data["findNodes"]) == ["person:alice-globex"]
    data = await globex(FIND, q="alice", scope=scope_input(ACME))
    assert data["findNodes"]["__typename"] == "ScopeError"


@pytest.mark.parametrize(
    ("variables", "field", "code"),
    [
        ({"q": "   "}, "query", "INVALID"),
        ({"q": "x" * 201}, "query", "TOO_LARGE"),
        ({"q": "alice", "limit": 0}, "limit", "INVALID"),
        ({"q": "alice", "limit": 101}, "limit", "INVALID"),
        ({"q": "alice", "types": ["person'); DROP TABLE chunks; --"]}, "types", "INVALID"),
        ({"q": "alice", "types": ["t"] * 33}, "types", "TOO_LARGE"),
    ],
)
async def test_bad_input_is_a_typed_error_naming_the_field(
    api: Api, variables: dict[str, Any], field: str, code: str
) -> None:
    await seed(api)
    data = await api(FIND, **variables)
    assert data["findNodes"]["__typename"] == "ValidationError"
    assert data["findNodes"]["field"] == field
    assert data["findNodes"]["code"] == code


async def test_quotes_and_sql_in_the_query_are_only_text(api: Api) -> None:
    await seed(api)
    result = await find(api, "alice' OR '1'='1")
    assert result["__typename"] == "FoundNodes"
    assert "person:alice-globex" not in keys(result)
    assert keys(await find(api, "%_%")) == []


async def test_the_finder_itself_is_scoped_so_hidden_keys_take_no_slot(api: Api) -> None:
    await seed(api)
    finder = api.runtime.finder
    hits = await finder.find_nodes(GLOBEX, find_query("alice", None, 1))
    # Acme's exact "Alice" would rank first; globex's must fill the one slot.
    assert [hit.key for hit in hits] == ["person:alice-globex"]
    assert [h.key for h in await finder.find_nodes(API, find_query("checkout", None, 5))] == []
