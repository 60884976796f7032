"""agentContext's routing table (003 §KnowledgeProvider Routing) and relationship lines,
pure: the same edge and pieces always go to the same section with the same text."""

from __future__ import annotations

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import EdgeView, NodeView
from kenning.domain.memory.context_lines import edge_line, edge_section, routed

ACME = Scope("acme")


def _edge(source: str, target: str, *evidence: str, kind: str = "specializes_in") -> EdgeView:
    return EdgeView(1, kind, source, target, ACME, evidence or ("c-none",))


@pytest.mark.parametrize(
    ("edge", "section"),
    [
        # A linked piece decides, also for an edge from the user.
        (_edge("user:alice", "technique:les", "c-ins"), "instructions"),
        (_edge("team:aero", "technique:les", "c-skill"), "skills"),
        # The first linked piece by chunk id when several are.
        (_edge("team:aero", "technique:les", "c-skill", "c-ins"), "instructions"),
        # No linked piece: from the active entity, user_profile; any other, context.
        (_edge("user:alice", "technique:les"), "user_profile"),
        (_edge("team:aero", "user:alice"), "context"),
        (_edge("team:aero", "technique:les"), "context"),
        # A piece routed to a memory section's name is context.
        (_edge("team:aero", "technique:les", "c-rules"), "context"),
    ],
)
def test_each_edge_goes_where_the_routing_table_says(edge: EdgeView, section: str) -> None:
    pieces = {"c-ins": "instructions", "c-skill": "skills", "c-rules": "rules"}
    assert edge_section(edge, "user:alice", pieces) == section


def test_without_an_active_entity_no_edge_is_the_profiles() -> None:
    assert edge_section(_edge("user:alice", "technique:les"), None, {}) == "context"


def test_pieces_go_to_their_own_info_type() -> None:
    assert [routed(t) for t in ("skills", "faq", None, "", "session")] == [
        "skills",
        "faq",
        "context",
        "context",
        "context",
    ]


def test_a_relationship_reads_edge_type_arrow_type_id_and_label() -> None:
    nodes = {
        "technique:les": NodeView("technique:les", "technique", {"label": "LES"}, ACME),
        "team:aero": NodeView("team:aero", "team", {"name": "Aero  team"}, ACME),
    }
    own = _edge("user:alice", "technique:les")
    rank, line = edge_line(own, "user:alice", nodes, 1 / 3)
    assert line.text == "SPECIALIZES_IN → Technique:les (LES)" and line.score == 0.333333
    assert rank == ("specializes_in", "technique:les", "user:alice")
    assert line.block is not None and line.chunk_ids == ("c-none",)
    other = _edge("user:bob", "team:aero", kind="member_of")
    assert (
        edge_line(other, "user:alice", nodes)[1].text
        == "User:bob MEMBER_OF → Team:aero (Aero team)"
    )
    unlabelled = _edge("team:aero", "db:pg", kind="uses")
    assert edge_line(unlabelled, None, nodes)[1].text == "Team:aero USES → Db:pg"
