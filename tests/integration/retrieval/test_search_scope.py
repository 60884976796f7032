"""Search and chunksByKind return exactly what the reader's scope may see, in every mode."""

from __future__ import annotations

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import ProjectGroups, Scope
from tests.support.graphql_api import Api
from tests.support.ingest_documents import ingest_all

pytestmark = pytest.mark.integration

# Every level of ARCHITECTURE.md's scope table, for two clients; p1 and p3 share group g1.
STORED = [Scope()] + [
    scope
    for client in ("acme", "globex")
    for scope in (
        Scope(client),
        Scope(client, "", "g1"),
        Scope(client, "", "g2"),
        Scope(client, "p1", "g1"),
        Scope(client, "p2", "g2"),
        Scope(client, "p3", "g1"),
    )
]
# The groups the writes record (each project with the group it names).
GROUPS = ProjectGroups.stamped(STORED)
READERS = [
    Scope(),
    Scope("acme"),
    Scope("acme", "", "g1"),
    Scope("acme", "p1", "g1"),
    Scope("acme", "p2", "g2"),
    Scope("globex", "p3", "g1"),
    Scope("globex", "p9", "g9"),
]

SEARCH = """
query($mode: SearchMode!) {
  search(query: "quarterly report", mode: $mode, limit: 100) {
    __typename
    ... on SearchSuccess { hits { chunk { sourceUrn scope { clientId projectId groupId } } } }
    ... on ScopeError { code message }
  }
}"""
BY_KIND = """
{ chunksByKind(kind: "report", limit: 100) { sourceUrn scope { clientId projectId groupId } } }
"""


def urn(scope: Scope) -> str:
    return f"report:{scope.client_id or '-'}/{scope.project_id or '-'}/{scope.group_id or '-'}"


def as_scope(value: dict[str, str]) -> Scope:
    return Scope(value["clientId"], value["projectId"], value["groupId"])


@pytest.fixture
async def stored(api: Api) -> Api:
    await ingest_all(
        api,
        [
            {
                "sourceUrn": urn(scope),
                "kind": "report",
                "content": f"The quarterly report of {scope.describe()}.",
                "scope": {
                    "clientId": scope.client_id,
                    "projectId": scope.project_id,
                    "groupId": scope.group_id,
                },
            }
            for scope in STORED
        ],
    )
    return api


def reader_api(api: Api, scope: Scope) -> Api:
    return api.as_(Principal(key_id=f"reader-{scope.describe()}", scope=scope, role=Role.UI))


@pytest.mark.parametrize("reader", READERS, ids=lambda s: s.describe())
@pytest.mark.parametrize("mode", ["KEYWORD", "VECTOR", "HYBRID"])
async def test_search_returns_exactly_the_visible_chunks(
    stored: Api, reader: Scope, mode: str
) -> None:
    result = (await reader_api(stored, reader)(SEARCH, mode=mode))["search"]
    assert result["__typename"] == "SearchSuccess"
    returned = [h["chunk"] for h in result["hits"]]
    assert all(reader.can_see(as_scope(c["scope"]), GROUPS) for c in returned)
    visible = {urn(scope) for scope in STORED if reader.can_see(scope, GROUPS)}
    assert {c["sourceUrn"] for c in returned} == visible


@pytest.mark.parametrize("reader", READERS, ids=lambda s: s.describe())
async def test_chunks_by_kind_returns_exactly_the_visible_chunks(
    stored: Api, reader: Scope
) -> None:
    returned = (await reader_api(stored, reader)(BY_KIND))["chunksByKind"]
    assert all(reader.can_see(as_scope(c["scope"]), GROUPS) for c in returned)
    assert {c["sourceUrn"] for c in returned} == {
        urn(scope) for scope in STORED if reader.can_see(scope, GROUPS)
    }


async def test_group_members_see_each_others_projects_but_not_other_groups(stored: Api) -> None:
    result = await reader_api(stored, Scope("acme", "p1", "g1"))(SEARCH, mode="KEYWORD")
    found = {h["chunk"]["sourceUrn"] for h in result["search"]["hits"]}
    assert urn(Scope("acme", "p3", "g1")) in found
    assert urn(Scope("acme", "p2", "g2")) not in found
    assert not any("globex" in u for u in found)


async def test_narrowing_outside_the_keys_scope_is_a_scope_error(stored: Api) -> None:
    reader = reader_api(stored, Scope("acme", "p1", "g1"))
    query = """{ search(query: "quarterly", scope: {clientId: "globex"}) {
        __typename ... on ScopeError { code message } } }"""
    result = (await reader(query))["search"]
    assert (result["__typename"], result["code"]) == ("ScopeError", "OUT_OF_SCOPE")


async def test_narrowing_inside_the_keys_scope_reads_less(stored: Api) -> None:
    reader = reader_api(stored, Scope("acme"))
    query = """{ search(query: "quarterly", mode: KEYWORD, limit: 100,
                        scope: {clientId: "acme", projectId: "p2", groupId: "g2"}) {
        ... on SearchSuccess { hits { sourceUrn } } } }"""
    found = {h["sourceUrn"] for h in (await reader(query))["search"]["hits"]}
    narrowed = Scope("acme", "p2", "g2")
    assert found == {urn(scope) for scope in STORED if narrowed.can_see(scope, GROUPS)}
