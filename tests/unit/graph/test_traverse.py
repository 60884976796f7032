"""Neighbourhoods and shortest paths over the in-memory graph reader."""

from __future__ import annotations

from collections import deque
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.domain.access.scope import NO_GROUPS, Scope
from kenning.domain.graph.model import Direction
from kenning.domain.graph.traverse import NeighborsQuery, neighbors, shortest_path
from tests.fakes.graph_reader import FakeGraph

ACME = Scope("acme")


def star_and_chain() -> FakeGraph:
    """hub → s1..s5 (links), s1 → s1x (owns), x:in → hub (feeds), a → b → c → d (next)."""
    graph = FakeGraph()
    for i in range(1, 6):
        graph.add_edge("n:hub", "links", f"n:s{i}")
    graph.add_edge("n:s1", "owns", "n:s1x")
    graph.add_edge("x:in", "feeds", "n:hub")
    for a, b in (("c:a", "c:b"), ("c:b", "c:c"), ("c:c", "c:d")):
        graph.add_edge(a, "next", b)
    return graph


def keys(view_nodes: tuple[object, ...]) -> list[str]:
    return [n.key for n in view_nodes]  # type: ignore[attr-defined]


async def test_depth_one_both_directions() -> None:
    graph = star_and_chain()
    sub = await neighbors(graph, Scope(), NeighborsQuery("n:hub", 1, Direction.BOTH, None, 100))
    assert set(keys(sub.nodes)) == {"n:hub", "x:in", "n:s1", "n:s2", "n:s3", "n:s4", "n:s5"}
    assert keys(sub.nodes)[0] == "n:hub"
    assert len(sub.edges) == 6 and not sub.truncated
    assert graph.calls == {"expand": 1, "nodes": 1}


async def test_direction_and_edge_type_filters() -> None:
    graph = star_and_chain()
    out = await neighbors(graph, Scope(), NeighborsQuery("n:hub", 1, Direction.OUT, None, 100))
    assert "x:in" not in keys(out.nodes) and len(out.nodes) == 6
    into = await neighbors(graph, Scope(), NeighborsQuery("n:hub", 1, Direction.IN, None, 100))
    assert set(keys(into.nodes)) == {"n:hub", "x:in"}
    typed = await neighbors(
        graph, Scope(), NeighborsQuery("n:hub", 2, Direction.BOTH, ("feeds", "owns"), 100)
    )
    assert set(keys(typed.nodes)) == {"n:hub", "x:in"}


async def test_depth_two_reaches_second_level_with_one_call_per_level() -> None:
    graph = star_and_chain()
    sub = await neighbors(graph, Scope(), NeighborsQuery("n:hub", 2, Direction.OUT, None, 100))
    assert "n:s1x" in keys(sub.nodes)
    assert graph.calls == {"expand": 2, "nodes": 1}
    chain = await neighbors(graph, Scope(), NeighborsQuery("c:a", 3, Direction.OUT, None, 100))
    assert keys(chain.nodes) == ["c:a", "c:b", "c:c", "c:d"]
    assert [(e.from_key, e.to_key) for e in chain.edges] == [
        ("c:a", "c:b"), ("c:b", "c:c"), ("c:c", "c:d")
    ]  # fmt: skip


async def test_limit_truncates_deterministically() -> None:
    graph = star_and_chain()
    query = NeighborsQuery("n:hub", 2, Direction.BOTH, None, 3)
    first = await neighbors(graph, Scope(), query)
    again = await neighbors(graph, Scope(), query)
    assert first.truncated and first == again
    assert len(first.nodes) == 4 and len(first.edges) == 3  # start + 3 neighbours
    # Edges in (type, from, to) order: "feeds" from x:in first, then the first two links.
    assert keys(first.nodes) == ["n:hub", "x:in", "n:s1", "n:s2"]
    exact = await neighbors(graph, Scope(), NeighborsQuery("n:hub", 1, Direction.BOTH, None, 6))
    assert not exact.truncated and len(exact.nodes) == 7


async def test_neighbours_respect_the_reader_scope() -> None:
    graph = FakeGraph()
    graph.add_edge("user:a", "knows", "user:b", scope=ACME)
    graph.add_edge("user:a", "knows", "user:c", scope=Scope("globex"))
    graph.add_edge("user:a", "knows", "user:d")  # global
    sub = await neighbors(graph, ACME, NeighborsQuery("user:a", 1, Direction.BOTH, None, 10))
    assert set(keys(sub.nodes)) == {"user:a", "user:b", "user:d"}
    assert all(ACME.can_see(e.scope, NO_GROUPS) for e in sub.edges)
    hidden = await neighbors(
        graph, Scope("other"), NeighborsQuery("user:b", 1, Direction.BOTH, None, 10)
    )
    assert hidden.nodes == () and hidden.edges == ()


async def test_path_found_absent_and_bounded_by_max_depth() -> None:
    graph = star_and_chain()
    path = await shortest_path(graph, Scope(), "c:a", "c:d", max_depth=3)
    assert path is not None and path.length == 3
    assert keys(path.nodes) == ["c:a", "c:b", "c:c", "c:d"]
    assert [e.to_key for e in path.edges] == ["c:b", "c:c", "c:d"]
    assert await shortest_path(graph, Scope(), "c:a", "c:d", max_depth=2) is None
    assert await shortest_path(graph, Scope(), "c:a", "n:hub", max_depth=6) is None
    same = await shortest_path(graph, Scope(), "c:b", "c:b", max_depth=1)
    assert same is not None and same.length == 0 and keys(same.nodes) == ["c:b"]


async def test_path_direction() -> None:
    graph = star_and_chain()
    backwards = await shortest_path(graph, Scope(), "c:d", "c:a", max_depth=3)
    assert backwards is not None and keys(backwards.nodes) == ["c:d", "c:c", "c:b", "c:a"]
    assert (
        await shortest_path(graph, Scope(), "c:d", "c:a", max_depth=3, direction=Direction.OUT)
        is None
    )
    reverse = await shortest_path(graph, Scope(), "c:d", "c:a", max_depth=3, direction=Direction.IN)
    assert reverse is not None and reverse.length == 3


async def test_path_costs_one_call_per_level_plus_two() -> None:
    graph = star_and_chain()
    await shortest_path(graph, Scope(), "c:a", "c:d", max_depth=6)
    assert graph.calls == {"hops": 3, "nodes": 1, "edges_by_ids": 1}


def bfs_length(edges: list[tuple[int, int]], source: int, target: int) -> int | None:
    adjacent: dict[int, set[int]] = {}
    for a, b in edges:
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)
    seen = {source: 0}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for nxt in adjacent.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return seen.get(target)


@settings(max_examples=150, deadline=None)
@given(
    edges=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30),
    source=st.integers(0, 11),
    target=st.integers(0, 11),
    max_depth=st.integers(1, 6),
)
async def test_bidirectional_search_finds_a_shortest_path(
    edges: list[tuple[int, int]], source: int, target: int, max_depth: int
) -> None:
    graph = FakeGraph()
    for i in range(12):
        graph.add_node(f"v:{i}")
    kept = [(a, b) for a, b in dict.fromkeys(edges) if a != b]
    for a, b in kept:
        graph.add_edge(f"v:{a}", "rel", f"v:{b}")
    path = await shortest_path(graph, Scope(), f"v:{source}", f"v:{target}", max_depth=max_depth)
    expected = bfs_length(kept, source, target) if source != target else 0
    if expected is None or expected > max_depth:
        assert path is None
        return
    assert path is not None and path.length == expected
    assert path.nodes[0].key == f"v:{source}" and path.nodes[-1].key == f"v:{target}"
    for edge, (here, there) in zip(path.edges, pairwise(path.nodes), strict=True):
        assert {edge.from_key, edge.to_key} == {here.key, there.key}
