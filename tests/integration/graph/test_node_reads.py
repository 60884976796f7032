"""`node` and `nodes` on the real stack: scope merging, edges, degree, chunks, aliases."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.graphql.context import Context
from tests.support.graph_data import scope_input, write_graph
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST, SEED, doc

pytestmark = pytest.mark.integration

NODE = """
query($key: String!, $scope: ScopeInput, $direction: Direction! = BOTH,
      $types: [String!], $limit: Int! = 50) {
  node(key: $key, scope: $scope) {
    key type properties degree
    scope { clientId projectId groupId }
    edges(direction: $direction, edgeTypes: $types, limit: $limit) {
      edgeType confidence evidenceCount extractedBy extractionConfidence
      scope { clientId projectId groupId }
      from { key } to { key type }
      evidence { id content scope { clientId projectId groupId } }
    }
  }
}
"""

GLOBAL = Scope()
ACME = Scope("acme")
FRONTEND = Scope("acme", "", "frontend")
WEB = Scope("acme", "web", "frontend")
MOBILE = Scope("acme", "mobile", "frontend")
API = Scope("acme", "api", "backend")
GLOBEX = Scope("globex")

# Where each of john's edges is stored, and the properties of john's vertex there.
WRITES: list[tuple[Scope, tuple[str, str, str], dict[str, object]]] = [
    (GLOBAL, ("user:john", "knows", "user:mary"), {"name": "John", "level": "global"}),
    (ACME, ("user:john", "works_at", "org:acme"), {"level": "client", "email": "j@acme"}),
    (FRONTEND, ("user:john", "member_of", "team:frontend"), {"level": "group"}),
    (WEB, ("user:john", "assigned", "task:web-1"), {"level": "web"}),
    (MOBILE, ("task:mob-1", "assigned_to", "user:john"), {"level": "mobile"}),
    (API, ("user:john", "assigned", "task:api-1"), {"level": "api"}),
    (GLOBEX, ("user:john", "knows", "user:eve"), {"level": "globex", "secret": "x"}),
]


LEVELS = {scope: props["level"] for scope, _, props in WRITES}
# The groups the writes record (each project with the group it names).
GROUPS = ProjectGroups.stamped(scope for scope, _, _ in WRITES)
# The vertex whose scope is most specific for each reader: its own project, else its group
# (which outranks the group's projects), else its client, else global.
WINNER = {
    GLOBAL: GLOBAL,
    ACME: ACME,
    FRONTEND: FRONTEND,
    WEB: WEB,
    MOBILE: MOBILE,
    API: API,
    GLOBEX: GLOBEX,
}


def as_scope(value: dict[str, str]) -> Scope:
    return Scope(value["clientId"], value["projectId"], value["groupId"])


async def write_johns(api: Api) -> None:
    for scope, triple, props in WRITES:
        await write_graph(api, scope, [triple], nodes={"user:john": props})


async def read(api: Api, key: str, reader: Scope, **variables: Any) -> dict[str, Any] | None:
    data = await api(NODE, key=key, scope=scope_input(reader), **variables)
    node: dict[str, Any] | None = data["node"]
    return node


@pytest.mark.parametrize("reader", [GLOBAL, ACME, FRONTEND, WEB, MOBILE, API, GLOBEX])
async def test_a_reader_sees_exactly_the_visible_vertices_and_edges(
    api: Api, reader: Scope
) -> None:
    await write_johns(api)
    node = await read(api, "user:john", reader)
    assert node is not None
    visible = [(s, t, p) for s, t, p in WRITES if reader.can_see(s, GROUPS)]
    expected_edges = {(t[0], t[1], t[2]) for _, t, _ in visible}
    got = {(e["from"]["key"], e["edgeType"], e["to"]["key"]) for e in node["edges"]}
    assert got == expected_edges
    assert node["degree"] == len(expected_edges)
    for edge in node["edges"]:
        assert reader.can_see(as_scope(edge["scope"]), GROUPS)
        assert edge["evidence"] and all(
            reader.can_see(as_scope(c["scope"]), GROUPS) for c in edge["evidence"]
        )
        # Written, not extracted: no model provenance.
        assert edge["extractedBy"] is None and edge["extractionConfidence"] is None
    expected = {"name": "John", "level": WINNER[reader].client_id and LEVELS[WINNER[reader]]}
    if reader.client_id == "acme":
        expected["email"] = "j@acme"
    if reader == GLOBEX:
        expected |= {"level": "globex", "secret": "x"}
    if reader == GLOBAL:  # it sees every vertex; its own level's wins
        expected |= {"level": "global", "email": "j@acme", "secret": "x"}
    assert node["properties"] == expected
    assert as_scope(node["scope"]) == WINNER[reader]


async def test_most_specific_scope_wins_and_is_reported(api: Api) -> None:
    await write_johns(api)
    web = await read(api, "user:john", WEB)
    assert web is not None
    # Own project beats the group, which beats the sibling project "mobile".
    assert web["properties"]["level"] == "web" and web["properties"]["email"] == "j@acme"
    assert as_scope(web["scope"]) == WEB
    group_reader = await read(api, "user:john", FRONTEND)
    assert group_reader is not None
    # A group reader sees the group's projects too, but the group's own vertex wins.
    assert group_reader["properties"]["level"] == "group"
    assert as_scope(group_reader["scope"]) == FRONTEND


async def test_invisible_or_unknown_node_is_null(api: Api) -> None:
    await write_graph(api, GLOBEX, [("user:eve", "knows", "user:zed")])
    assert await read(api, "user:eve", ACME) is None
    assert await read(api, "user:nobody", GLOBEX) is None
    assert await read(api, "user:eve", GLOBEX) is not None


async def test_direction_type_filter_and_limit(api: Api) -> None:
    await write_graph(
        api,
        ACME,
        [
            ("user:john", "knows", "user:ann"),
            ("user:john", "knows", "user:bob"),
            ("user:john", "manages", "team:core"),
            ("user:zoe", "knows", "user:john"),
        ],
    )
    out = await read(api, "user:john", ACME, direction="OUT")
    assert out is not None
    assert [(e["edgeType"], e["to"]["key"]) for e in out["edges"]] == [
        ("knows", "user:ann"), ("knows", "user:bob"), ("manages", "team:core")
    ]  # fmt: skip
    into = await read(api, "user:john", ACME, direction="IN")
    assert into is not None and [e["from"]["key"] for e in into["edges"]] == ["user:zoe"]
    typed = await read(api, "user:john", ACME, types=["KNOWS"])
    assert typed is not None and len(typed["edges"]) == 3
    assert {e["edgeType"] for e in typed["edges"]} == {"knows"}
    limited = await read(api, "user:john", ACME, limit=2)
    assert limited is not None and len(limited["edges"]) == 2 and limited["degree"] == 4


async def test_confidence_grows_with_evidence(api: Api) -> None:
    await write_graph(api, ACME, [("user:john", "knows", "user:ann")], pieces_per_edge=3)
    node = await read(api, "user:john", ACME)
    assert node is not None
    [edge] = node["edges"]
    assert edge["evidenceCount"] == 3 and len(edge["evidence"]) == 3
    assert edge["confidence"] == pytest.approx(0.75)


async def test_node_chunks_are_the_chunks_referencing_it(api: Api) -> None:
    await api(INGEST, input=doc(SEED))
    await api(INGEST, input=doc("Unrelated text.", urn="doc:other", mainNodeKey=None))
    data = await api(
        'query { node(key: "Jira::TASK-123", scope: {clientId: "acme"}) '
        "{ key chunks(limit: 5) { sourceUrn graphRefs } } }"
    )
    node = data["node"]
    assert node["key"] == "jira:task-123"
    assert [c["sourceUrn"] for c in node["chunks"]] == ["jira:TASK-123"]
    assert "jira:task-123" in node["chunks"][0]["graphRefs"]
    hidden = await api('query { node(key: "jira:task-123", scope: {clientId: "globex"}) { key } }')
    assert hidden["node"] is None


async def test_node_key_is_normalized_and_alias_resolved(api: Api) -> None:
    await write_graph(api, ACME, [("user:john", "knows", "user:ann")])
    registered = await api(
        'mutation { registerAlias(scope: {clientId: "acme"}, alias: "user:johnny", '
        'canonical: "user:john") { __typename } }'
    )
    assert registered["registerAlias"]["__typename"] == "RegisterAliasSuccess"
    node = await read(api, "  User::JOHNNY ", ACME)
    assert node is not None and node["key"] == "user:john"
    # Aliases are per client: globex's reader does not resolve acme's alias.
    assert await read(api, "user:johnny", GLOBEX) is None


async def test_nodes_in_order_with_nulls(api: Api) -> None:
    await write_graph(api, ACME, [("user:john", "knows", "user:ann")])
    data = await api(
        'query { nodes(keys: ["user:ann", "user:ghost", "User:John"], scope: {clientId: "acme"}) '
        "{ key } }"
    )
    assert data["nodes"] == [{"key": "user:ann"}, None, {"key": "user:john"}]


async def errors(api: Api, query: str) -> list[str]:
    context = Context(runtime=api.runtime, principal=api.principal)
    result = await api.schema.execute(query, context_value=context)
    return [e.message for e in result.errors or []]


async def test_bad_arguments_are_errors_naming_the_field(api: Api) -> None:
    await write_graph(api, GLOBAL, [("user:john", "knows", "user:ann")])
    assert "namespace" in (await errors(api, 'query { node(key: "no namespace") { key } }'))[0]
    [message] = await errors(
        api, 'query { node(key: "user:john") { edges(limit: 100000) { edgeType } } }'
    )
    assert message == "limit must be between 1 and 500"
    [message] = await errors(
        api, 'query { node(key: "user:john") { edges(edgeTypes: ["?"]) { edgeType } } }'
    )
    assert "edge type" in message
