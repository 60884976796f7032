"""Pure rules of the graph read side: confidence, argument checks, merging a key's vertices."""

from __future__ import annotations

from itertools import pairwise

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.graph.model import (
    Direction,
    EdgeView,
    VertexPart,
    check_depth,
    check_max_depth,
    check_range,
    edge_confidence,
    edge_type_filter,
    merge_vertices,
)


def test_confidence_grows_with_support_and_saturates_below_one() -> None:
    values = [edge_confidence(n) for n in range(12)]
    assert values[:4] == [0.0, 0.5, pytest.approx(2 / 3), 0.75]
    assert all(a < b < 1 for a, b in pairwise(values))
    assert edge_confidence(99) == pytest.approx(0.99)


def test_edge_confidence_counts_distinct_chunks() -> None:
    edge = EdgeView(1, "affects", "a:1", "b:1", Scope(), ("c1", "c2", "c2"))
    assert edge.confidence == pytest.approx(2 / 3)


@pytest.mark.parametrize("depth", [0, 4, -1])
def test_depth_outside_one_to_three_names_the_field(depth: int) -> None:
    with pytest.raises(ValidationError) as caught:
        check_depth(depth)
    assert caught.value.field == "depth"


def test_depth_and_max_depth_bounds() -> None:
    assert [check_depth(d) for d in (1, 2, 3)] == [1, 2, 3]
    assert check_max_depth(6) == 6
    with pytest.raises(ValidationError) as caught:
        check_max_depth(7)
    assert caught.value.field == "maxDepth"
    with pytest.raises(ValidationError) as caught:
        check_range(1001, 1, 1000, "limit")
    assert caught.value.field == "limit"


def test_edge_type_filter_normalizes_and_bounds() -> None:
    assert edge_type_filter(None) is None
    assert edge_type_filter([]) == ()
    assert edge_type_filter(["MODIFIED_BY", "modifiedBy", "affects"]) == ("affects", "modified_by")
    for bad in (["not a type!"], [f"t{i}" for i in range(33)]):
        with pytest.raises(ValidationError) as caught:
            edge_type_filter(bad)
        assert caught.value.field == "edgeTypes"


def test_direction_reverse() -> None:
    assert [d.reverse for d in Direction] == [Direction.IN, Direction.OUT, Direction.BOTH]


def test_most_specific_scope_wins_for_the_reader() -> None:
    reader = Scope("acme", "web", "frontend")
    parts = [
        VertexPart(Scope("acme", "web", "frontend"), "user", {"d": "own project"}),
        VertexPart(Scope("acme", "mobile", "frontend"), "user", {"c": "sibling", "d": "sibling"}),
        VertexPart(Scope("acme", "", "frontend"), "user", {"c": "group"}),
        VertexPart(Scope("acme"), "user", {"b": "client", "c": "client"}),
        VertexPart(Scope(), "user", {"a": "global", "b": "global"}),
    ]
    node = merge_vertices("user:john", parts, reader)
    assert node is not None
    assert dict(node.properties) == {
        "a": "global",
        "b": "client",
        "c": "group",
        "d": "own project",
    }
    assert node.scope == Scope("acme", "web", "frontend")


def test_sibling_projects_tie_break_by_greatest_project_id() -> None:
    reader = Scope("acme", "", "frontend")
    parts = [
        VertexPart(Scope("acme", "beta", "frontend"), "user", {"x": "beta"}),
        VertexPart(Scope("acme", "alpha", "frontend"), "user", {"x": "alpha"}),
    ]
    for ordering in (parts, parts[::-1]):
        node = merge_vertices("user:john", ordering, reader)
        assert node is not None and node.properties == {"x": "beta"}
        assert node.scope.project_id == "beta"


def test_no_vertices_no_node() -> None:
    assert merge_vertices("user:john", [], Scope()) is None
