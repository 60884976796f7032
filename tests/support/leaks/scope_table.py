"""The scope table: rows written at each level of the scope tree, and what each reader sees."""

from __future__ import annotations

from kenning.domain.access.scope import Scope

# Row kinds (client c1: group g1 holds projects p1 and p3, group g2 holds p2; the writes
# record that), each with the edge it adds to the graph.
ROWS: dict[str, tuple[Scope, tuple[str, str, str]]] = {
    "global": (Scope(), ("user:ann", "knows", "user:bob")),
    "client": (Scope("c1"), ("user:ann", "owns", "svc:auth")),
    "group": (Scope("c1", "", "g1"), ("svc:auth", "uses", "svc:billing")),
    "project": (Scope("c1", "p1", "g1"), ("svc:billing", "uses", "team:core")),
    "sibling project": (Scope("c1", "p3", "g1"), ("user:bob", "knows", "team:core")),
    # Written by a key naming no group: p3's recorded group decides who sees it.
    "sibling project, no group named": (Scope("c1", "p3"), ("user:bob", "owns", "doc:spec")),
    "other group": (Scope("c1", "", "g2"), ("doc:spec", "owns", "team:core")),
    "other group's project": (Scope("c1", "p2", "g2"), ("user:ann", "uses", "doc:spec")),
    "other client": (Scope("c2"), ("user:ann", "knows", "team:core")),
    "other client, same ids": (Scope("c2", "p1", "g1"), ("team:core", "uses", "doc:spec")),
}
C1_ROWS = {name for name, (scope, _) in ROWS.items() if scope.client_id == "c1"}
G1_ROWS = {
    "global",
    "client",
    "group",
    "project",
    "sibling project",
    "sibling project, no group named",
}
G2_ROWS = {"global", "client", "other group", "other group's project"}

# A reader sees every row at or below its level in its branch, and the rows above it.
READERS: dict[str, tuple[Scope, set[str]]] = {
    "global": (Scope(), set(ROWS)),
    "client": (Scope("c1"), {"global", *C1_ROWS}),
    "group": (Scope("c1", "", "g1"), G1_ROWS),
    "project in group": (Scope("c1", "p1", "g1"), G1_ROWS),
    # A project key naming no group follows its project's recorded group.
    "project without group": (Scope("c1", "p1"), G1_ROWS),
    "project of the other group": (Scope("c1", "p2", "g2"), G2_ROWS),
    # A key minted for p2 with another group: p2's recorded group decides, not the key.
    "project key naming a stale group": (Scope("c1", "p2", "g1"), G2_ROWS),
    "project in no group": (Scope("c1", "p9"), {"global", "client"}),
    "other client": (
        Scope("c2", "p1", "g1"),
        {"global", "other client", "other client, same ids"},
    ),
    "unknown client": (Scope("c3", "p1", "g1"), {"global"}),
}
