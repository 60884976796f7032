"""`neighbors` and `path` on the real stack: depth, direction, types, truncation, scope."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import ProjectGroups, Scope
from tests.support.graph_data import scope_input, write_graph
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Scope("acme")
WEB = Scope("acme", "web", "frontend")
GLOBEX = Scope("globex")

NEIGHBORS = """
query($key: String!, $depth: Int!, $direction: Direction!, $types: [String!], $limit: Int!,
      $scope: ScopeInput) {
  neighbors(key: $key, depth: $depth, direction: $direction, edgeTypes: $types, limit: $limit,
            scope: $scope) {
    truncated
    nodes { key scope { clientId projectId groupId } }
    edges { edgeType from { key } to { key } scope { clientId projectId groupId } }
  }
}
"""

PATH = """
query($from: String!, $to: String!, $maxDepth: Int!, $types: [String!], $scope: ScopeInput) {
  path(from: $from, to: $to, maxDepth: $maxDepth, edgeTypes: $types, scope: $scope) {
    length nodes { key } edges { edgeType from { key } to { key } confidence }
  }
}
"""

# a → b → c → d → e (next); a → x (tag); y → a (refers); and a shortcut b → d (skip).
CHAIN = [
    ("n:a", "next", "n:b"),
    ("n:b", "next", "n:c"),
    ("n:c", "next", "n:d"),
    ("n:d", "next", "n:e"),
    ("n:a", "tag", "n:x"),
    ("n:y", "refers", "n:a"),
    ("n:b", "skip", "n:d"),
]


async def around(
    api: Api,
    key: str,
    depth: int = 1,
    direction: str = "BOTH",
    types: list[str] | None = None,
    limit: int = 100,
    reader: Scope = ACME,
) -> dict[str, Any]:
    data = await api(
        NEIGHBORS,
        key=key,
        depth=depth,
        direction=direction,
        types=types,
        limit=limit,
        scope=scope_input(reader),
    )
    result: dict[str, Any] = data["neighbors"]
    return result


def node_keys(sub: dict[str, Any]) -> set[str]:
    return {n["key"] for n in sub["nodes"]}


def triples(sub: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["from"]["key"], e["edgeType"], e["to"]["key"]) for e in sub["edges"]}


async def test_depth_direction_and_types(api: Api) -> None:
    await write_graph(api, ACME, CHAIN)
    one = await around(api, "n:a")
    assert node_keys(one) == {"n:a", "n:b", "n:x", "n:y"} and not one["truncated"]
    assert triples(one) == {CHAIN[0], CHAIN[4], CHAIN[5]}
    out = await around(api, "n:a", direction="OUT")
    assert node_keys(out) == {"n:a", "n:b", "n:x"}
    into = await around(api, "N:A", direction="IN")
    assert node_keys(into) == {"n:a", "n:y"}
    two = await around(api, "n:a", depth=2, direction="OUT", types=["next"])
    assert node_keys(two) == {"n:a", "n:b", "n:c"}
    three = await around(api, "n:a", depth=3, direction="OUT", types=["next", "skip"])
    assert node_keys(three) == {"n:a", "n:b", "n:c", "n:d", "n:e"}
    # b→d (skip) reaches d at depth 2, so d→e is traversed at depth 3; c→d joins known nodes.
    assert triples(three) == {CHAIN[0], CHAIN[1], CHAIN[2], CHAIN[3], CHAIN[6]}


async def test_limit_truncates(api: Api) -> None:
    await write_graph(api, ACME, [("hub:h", "links", f"leaf:{i:02}") for i in range(12)])
    full = await around(api, "hub:h", limit=12)
    assert len(full["nodes"]) == 13 and not full["truncated"]
    cut = await around(api, "hub:h", limit=5)
    assert cut["truncated"]
    assert [n["key"] for n in cut["nodes"]] == ["hub:h"] + [f"leaf:{i:02}" for i in range(5)]
    assert len(cut["edges"]) == 5


async def test_neighbors_never_cross_scopes(api: Api) -> None:
    await write_graph(api, ACME, [("user:john", "knows", "user:ann")])
    await write_graph(api, WEB, [("user:ann", "owns", "repo:web")])
    await write_graph(api, GLOBEX, [("user:john", "knows", "user:eve")])
    await write_graph(api, Scope("acme", "api", "backend"), [("user:ann", "owns", "repo:api")])
    for reader in (ACME, WEB, GLOBEX):
        sub = await around(api, "user:john", depth=3, reader=reader)
        for item in sub["nodes"] + sub["edges"]:
            s = item["scope"]
            row = Scope(s["clientId"], s["projectId"], s["groupId"])
            assert reader.can_see(
                row, ProjectGroups.stamped([WEB, Scope("acme", "api", "backend")])
            )
    assert node_keys(await around(api, "user:john", depth=2, reader=WEB)) == {
        "user:john", "user:ann", "repo:web"
    }  # fmt: skip
    assert node_keys(await around(api, "user:john", depth=2, reader=GLOBEX)) == {
        "user:john", "user:eve"
    }  # fmt: skip
    assert (await around(api, "user:eve", reader=ACME))["nodes"] == []


async def path(api: Api, a: str, b: str, max_depth: int = 4, **extra: Any) -> Any:
    reader = extra.pop("reader", ACME)
    data = await api(
        PATH, scope=scope_input(reader), maxDepth=max_depth, **{"from": a, "to": b}, **extra
    )
    return data["path"]


async def test_path_found_absent_and_bounded(api: Api) -> None:
    await write_graph(api, ACME, CHAIN)
    await write_graph(api, ACME, [("n:lonely", "self", "n:alone")], urn="graph:island")
    found = await path(api, "n:y", "n:e")
    # y→a→b→d→e via the shortcut (4) beats y→a→b→c→d→e (5).
    assert [n["key"] for n in found["nodes"]] == ["n:y", "n:a", "n:b", "n:d", "n:e"]
    assert found["length"] == 4
    assert [e["edgeType"] for e in found["edges"]] == ["refers", "next", "skip", "next"]
    assert all(e["confidence"] == 0.5 for e in found["edges"])
    assert await path(api, "n:y", "n:e", max_depth=3) is None
    assert await path(api, "n:a", "n:lonely", max_depth=6) is None
    no_skip = await path(api, "n:y", "n:e", max_depth=6, types=["next", "refers"])
    assert no_skip["length"] == 5
    same = await path(api, "n:c", "n:c")
    assert same == {"length": 0, "nodes": [{"key": "n:c"}], "edges": []}


async def test_path_stays_in_scope(api: Api) -> None:
    await write_graph(api, ACME, [("user:a", "knows", "user:b")])
    await write_graph(api, GLOBEX, [("user:b", "knows", "user:c")])
    await write_graph(api, GLOBEX, [("user:a", "knows", "user:c")], urn="graph:2")
    assert await path(api, "user:a", "user:c", reader=ACME) is None
    assert (await path(api, "user:a", "user:c", reader=GLOBEX))["length"] == 1


async def test_path_resolves_aliases(api: Api) -> None:
    await write_graph(api, ACME, CHAIN)
    await api(
        'mutation { registerAlias(scope: {clientId: "acme"}, alias: "n:start", '
        'canonical: "n:a") { __typename } }'
    )
    found = await path(api, "N:Start", "n:c")
    assert [n["key"] for n in found["nodes"]] == ["n:a", "n:b", "n:c"]
