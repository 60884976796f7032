"""Records re-keyed to canonical keys inside a write unit, as the alias merge would leave them."""

from __future__ import annotations

from dataclasses import replace

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.request import ChunkRecord, EdgeRecord, NodeRecord, SourceRecord
from kenning.storage.ingestion.alias_guard import (
    rekey_chunks,
    rekey_edges,
    rekey_nodes,
    rekey_source,
)

ALIASES = {"org:a": "org:canon", "org:canon": "org:canon", "person:p": "person:p"}
ACME = Scope("acme")


def test_nodes_collapse_onto_the_canonical_whose_own_properties_win() -> None:
    nodes = [
        NodeRecord("org:canon", "company", {"name": "Canon", "size": 3}),
        NodeRecord("org:a", "org", {"name": "A", "city": "Oslo"}),
        NodeRecord("person:p", "person"),
    ]
    assert rekey_nodes(nodes, ALIASES) == [
        NodeRecord("org:canon", "company", {"name": "Canon", "size": 3, "city": "Oslo"}),
        NodeRecord("person:p", "person"),
    ]


def test_a_renamed_node_takes_the_canonical_type() -> None:
    assert rekey_nodes([NodeRecord("org:a", "org")], {"org:a": "team:x"}) == [
        NodeRecord("team:x", "team")
    ]


def test_edges_unite_evidence_and_drop_self_loops() -> None:
    edges = [
        EdgeRecord("org:a", "employs", "person:p", ("c2",)),
        EdgeRecord("org:canon", "employs", "person:p", ("c1", "c2")),
        EdgeRecord("org:a", "same_as", "org:canon", ("c1",)),
    ]
    assert rekey_edges(edges, ALIASES) == [
        EdgeRecord("org:canon", "employs", "person:p", ("c1", "c2"))
    ]


def test_chunk_refs_and_source_mentions_name_each_canonical_once() -> None:
    chunk = ChunkRecord(
        id="c1", source_urn="doc:1", ordinal=0, kind="note", scope=ACME, content="x",
        embedding=(0.0,), graph_refs=("org:a", "org:canon", "person:p"), content_hash="h",
    )  # fmt: skip
    [rekeyed] = rekey_chunks([chunk], ALIASES)
    assert rekeyed.graph_refs == ("org:canon", "person:p")
    untouched = replace(chunk, graph_refs=("person:p",))
    assert rekey_chunks([untouched], ALIASES) == [untouched]
    source = SourceRecord(ACME, "doc:1", "note", "h", "org:a", None, ("c1",),
                          ("person:p", "org:a", "org:canon"))  # fmt: skip
    assert rekey_source(source, ALIASES) == SourceRecord(
        ACME, "doc:1", "note", "h", "org:canon", None, ("c1",), ("org:canon", "person:p")
    )
