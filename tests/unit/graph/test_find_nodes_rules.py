"""`findNodes` in the domain: input checks naming the field, and matches read as `node` reads."""

from __future__ import annotations

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.graph.find import (
    MAX_QUERY_LENGTH,
    FindNodesQuery,
    MatchedOn,
    NodeHit,
    find_nodes,
    find_query,
)
from tests.fakes.graph_reader import FakeGraph

ACME = Scope("acme")
GLOBEX = Scope("globex")


class ListedFinder:
    """A finder answering with fixed hits; remembers what it was asked."""

    def __init__(self, hits: list[NodeHit]) -> None:
        self.hits = hits
        self.asked: list[FindNodesQuery] = []

    async def find_nodes(self, reader: Scope, query: FindNodesQuery) -> list[NodeHit]:
        self.asked.append(query)
        return self.hits[: query.limit]


def test_the_query_is_trimmed_and_read_as_a_key_and_an_id() -> None:
    query = find_query("  Service::Billing   SVC ", ["Service", "team", "service"], 5)
    assert query.text == "Service::Billing SVC"
    assert query.exact_key == "service:billing svc"
    assert query.types == ("service", "team")
    plain = find_query("Alice Chen", None, 20)
    assert plain.exact_key is None and plain.exact_id == "alice chen" and plain.types is None


def test_text_that_is_no_key_is_still_searched() -> None:
    assert find_query(": nothing", None, 1).exact_key is None
    assert find_query("a:b:c", None, 1).exact_id == "a b c"


@pytest.mark.parametrize(
    ("text", "types", "limit", "field", "error"),
    [
        ("", None, 20, "query", ValidationError),
        (" \n\t ", None, 20, "query", ValidationError),
        ("x" * (MAX_QUERY_LENGTH + 1), None, 20, "query", TooLargeError),
        ("alice", None, 0, "limit", ValidationError),
        ("alice", None, 101, "limit", ValidationError),
        ("alice", ["per son"], 20, "types", ValidationError),
        ("alice", ["1person"], 20, "types", ValidationError),
        ("alice", ['x" OR 1=1'], 20, "types", ValidationError),
        ("alice", ["a" * 65], 20, "types", ValidationError),
        ("alice", ["t"] * 33, 20, "types", TooLargeError),
    ],
)
def test_bad_input_names_its_field(
    text: str, types: list[str] | None, limit: int, field: str, error: type[ValidationError]
) -> None:
    with pytest.raises(error) as raised:
        find_query(text, types, limit)
    assert raised.value.field == field
    assert type(raised.value) is error


async def test_matches_are_the_visible_nodes_in_the_finders_order() -> None:
    graph = FakeGraph()
    graph.add_node("person:alice", ACME, name="Alice")
    graph.add_node("person:alice-chen", ACME)
    graph.add_node("person:eve", GLOBEX, name="Alice")
    finder = ListedFinder(
        [
            NodeHit("person:alice", 1.0, True, MatchedOn.NAME),
            NodeHit("person:eve", 0.9, False, MatchedOn.NAME),  # removed, or not visible
            NodeHit("person:alice-chen", 0.6, False, MatchedOn.KEY),
        ]
    )
    found = await find_nodes(finder, graph, ACME, find_query("alice", None, 10))
    assert [m.node.key for m in found] == ["person:alice", "person:alice-chen"]
    assert [m.label for m in found] == ["Alice", "alice-chen"]
    assert found[0].exact and found[0].score == 1.0 and found[1].matched_on is MatchedOn.KEY


async def test_an_empty_type_list_matches_nothing_without_reading() -> None:
    finder = ListedFinder([NodeHit("person:alice", 1.0, True, MatchedOn.NAME)])
    assert await find_nodes(finder, FakeGraph(), ACME, find_query("alice", [], 10)) == []
    assert finder.asked == []
