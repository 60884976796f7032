"""agentContext's graph layer on the fake graph: hops scored 1/hop, one statement per hop,
linked pieces (evidence chunks with an info type) merged with search hits by chunk id."""

from __future__ import annotations

from kenning.domain.access.scope import GLOBAL
from kenning.domain.retrieval.context_graph import linked_pieces, merged, traverse
from kenning.domain.retrieval.search import SearchHit
from tests.fakes.graph_reader import FakeGraph
from tests.support.memory_agent_context import piece


def _chain() -> FakeGraph:
    """user:a → team:b → org:c → city:d, and an edge in from x:y."""
    graph = FakeGraph()
    graph.add_edge("user:a", "member_of", "team:b")  # c0-0
    graph.add_edge("team:b", "part_of", "org:c")  # c1-0
    graph.add_edge("org:c", "based_in", "city:d")  # c2-0
    graph.add_edge("x:y", "knows", "user:a")  # c3-0
    return graph


async def test_each_edge_comes_with_the_hop_it_was_first_reached_at() -> None:
    graph = _chain()
    for depth, expected in (
        (1, {1: 1, 4: 1}),
        (2, {1: 1, 2: 2, 4: 1}),
        (3, {1: 1, 2: 2, 3: 3, 4: 1}),
    ):
        reached = await traverse(graph, GLOBAL, ["user:a"], depth)
        assert {r.edge.id: r.depth for r in reached} == expected
    assert graph.calls["edges_of"] == 3 and graph.calls["expand"] == 3  # one read per hop


async def test_linked_pieces_score_one_over_the_best_hop_and_merge_keeps_the_higher() -> None:
    reached = await traverse(_chain(), GLOBAL, ["user:a"], 3)
    chunks = {
        "c0-0": piece("c0-0", "Alice is in team b.", "user_profile"),
        "c1-0": piece("c1-0", "Team b belongs to org c.", "context"),
        "c2-0": piece("c2-0", "Org c sits in city d.", "context"),
        "c3-0": piece("c3-0", "plain evidence, no info type"),
    }
    linked = {h.chunk.id: round(h.score, 3) for h in linked_pieces(reached, chunks)}
    assert linked == {"c0-0": 1.0, "c1-0": 0.5, "c2-0": 0.333}  # no info type: no piece
    searched = [
        SearchHit(chunks["c1-0"], 0.9, 1, None),  # the search scored it higher: 0.9 stays
        SearchHit(chunks["c2-0"], 0.1, 2, None),  # the graph scored it higher: 0.333 stays
        SearchHit(piece("s-1", "search only"), 0.333333, 3, None),
    ]
    ranked = merged(searched, linked_pieces(reached, chunks))
    assert [(h.chunk.id, round(h.score, 3)) for h in ranked] == [
        ("c0-0", 1.0),
        ("c1-0", 0.9),
        ("c2-0", 0.333),
        ("s-1", 0.333),
    ]


async def test_nothing_to_start_from_reads_nothing() -> None:
    graph = _chain()
    assert await traverse(graph, GLOBAL, [], 3) == []
    assert not graph.calls
