"""``allNodes`` on the real stack: the nodes a key may see by key, page by page without gaps
or repeats, of some types, each merged as ``node`` shows it (one entry per key however many
scopes hold it); another client's nodes never appear; bad arguments name their field."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from tests.support.graph_data import write_graph
from tests.support.graphql_api import Api
from tests.support.queue_api import agent

pytestmark = pytest.mark.integration

ALL = """query A($types: [String!], $first: Int!, $after: String) {
  allNodes(types: $types, first: $first, after: $after) {
    nodes { key type properties scope { clientId projectId } } endCursor hasNextPage } }"""


async def every_node(api: Api, first: int, types: list[str] | None = None) -> list[Any]:
    found: list[Any] = []
    after = None
    while True:
        page = (await api(ALL, types=types, first=first, after=after))["allNodes"]
        found += page["nodes"]
        if not page["hasNextPage"]:
            return found
        after = page["endCursor"]


@pytest.fixture
async def graphs(api: Api) -> Api:
    edges = [
        ("service:billing", "depends_on", "service:auth"),
        ("team:core", "owns", "service:auth"),
    ]
    await write_graph(api, Scope("acme"), edges, nodes={"service:auth": {"tier": "1"}})
    await write_graph(
        api, Scope("acme", "p1"), [("service:auth", "runs_on", "host:db1")], urn="graph:p1"
    )
    await write_graph(api, Scope("globex"), [("service:mail", "depends_on", "host:mx")])
    return api


async def test_a_key_lists_its_visible_nodes_by_key_page_by_page(graphs: Api) -> None:
    acme = graphs.as_(agent("acme"))
    keys = ["host:db1", "service:auth", "service:billing", "team:core"]
    for first in (1, 3, 50):
        assert [n["key"] for n in await every_node(acme, first)] == keys
    auth = next(n for n in await every_node(acme, 50) if n["key"] == "service:auth")
    assert auth["properties"]["tier"] == "1" and auth["type"] == "service"
    services = await every_node(acme, 1, ["Service"])
    assert [n["key"] for n in services] == ["service:auth", "service:billing"]
    assert await every_node(acme, 10, []) == []
    globex = graphs.as_(agent("globex"))
    assert [n["key"] for n in await every_node(globex, 10)] == ["host:mx", "service:mail"]


@pytest.mark.parametrize(
    ("variables", "field"),
    [
        ({"first": 0}, "first"),
        ({"first": 201}, "first"),
        ({"after": "bm9wZQ"}, "after"),
        ({"types": ["not a type!"]}, "types"),
    ],
)
async def test_a_bad_argument_names_its_field(
    graphs: Api, variables: dict[str, Any], field: str
) -> None:
    result = await graphs.as_(agent("acme")).execute(ALL, **{"first": 5, **variables})
    assert result.errors is not None
    extensions = result.errors[0].extensions or {}
    assert (extensions.get("code"), extensions.get("field")) == ("BAD_USER_INPUT", field)
