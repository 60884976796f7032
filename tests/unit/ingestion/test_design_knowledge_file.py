"""Knowledge files in the design's format (003 §Path B) on fakes: the design's own example
reads with nothing rejected, a piece's entity_id links it to its entity, and a file mixing
the two formats item by item is refused per item, the field named."""

from __future__ import annotations

from typing import Any

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.graph_items import GraphPiece, Rejection
from kenning.domain.ingestion.knowledge_file import DESIGN, KENNING, load_knowledge, read_file
from kenning.domain.ingestion.request import EdgeRecord, KnowledgeType, NodeRecord
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.design_knowledge import DESIGN_EXAMPLE
from tests.support.ingest_deps import deps

ACME = Scope("acme", "web")


def test_the_design_example_reads_as_one_request_with_nothing_rejected() -> None:
    loaded = read_file(DESIGN_EXAMPLE, "kb:alice", ACME)
    request = loaded.request
    assert loaded.format is DESIGN and loaded.rejected == []
    assert request.pieces == (
        GraphPiece(
            "les-rans-init",
            "Initialize transient LES from converged RANS -- cuts spin-up by ~40%",
            KnowledgeType.PROCEDURE,
            "instructions",
            ("les", "initialization", "rans"),
            "LES RANS initialization spin-up transient",
            entity_key="user:alice",
        ),
    )
    assert request.nodes == (
        NodeRecord("user:alice", "user", {"label": "Alice"}),
        NodeRecord("technique:les", "technique", {"label": "LES"}),
    )
    # The linked piece is read by ingest_graph, as for ingestGraph's edge properties.
    assert request.edges == (
        EdgeRecord(
            "user:alice", "SPECIALIZES_IN", "technique:les", (), {"piece_id": "les-rans-init"}
        ),
    )
    assert request.metadata == {
        "user:alice": {
            "type": "user",
            "properties": {"specialization": "turbomachinery", "team": "aero"},
        }
    }


async def test_the_design_example_loads_every_item() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    result = await load_knowledge(DESIGN_EXAMPLE, "kb:alice", ACME, deps(store, embedder))
    assert result.outcome.status == "INDEXED" and result.rejected == ()
    nodes = {n.key: n for n in store.nodes}
    assert nodes["user:alice"] == NodeRecord(
        "user:alice", "user", {"label": "Alice", "specialization": "turbomachinery", "team": "aero"}
    )
    assert nodes["technique:les"] == NodeRecord("technique:les", "technique", {"label": "LES"})
    [chunk] = store.chunks
    assert [(e.from_key, e.edge_type, e.to_key, e.evidence_chunk_ids) for e in store.edges] == [
        ("user:alice", "specializes_in", "technique:les", (chunk.id,))
    ]
    assert (chunk.knowledge_type, chunk.info_type) == ("PROCEDURE", "instructions")
    assert chunk.metadata == {"pieceRef": "les-rans-init", "entityKey": "user:alice"}
    assert embedder.batches == [["LES RANS initialization spin-up transient"]]


async def test_a_piece_no_edge_cites_still_refers_to_its_entity() -> None:
    document = {
        "metadata": {"bob": {"entity_type": "user", "properties": {"team": "cfd"}}},
        "pieces": [
            {"piece_id": "a", "content": "Bob prefers second-order schemes.", "entity_id": "bob"},
            {"piece_id": "b", "content": "Meshes are checked first.", "entity_id": "team:cfd"},
        ],
    }
    store = FakeStore()
    result = await load_knowledge(document, "kb:bob", ACME, deps(store, FakeEmbedder()))
    assert result.rejected == () and store.edges == []
    refs = {c.metadata["pieceRef"]: c.graph_refs for c in store.chunks}
    assert refs == {"a": ("user:bob",), "b": ("team:cfd",)}
    # The entity nobody defined is a bare node of its key's type; both are the source's.
    assert {n.key: n.type for n in store.nodes} == {"user:bob": "user", "team:cfd": "team"}
    assert set(store.sources["kb:bob"].mentions) == {"user:bob", "team:cfd"}


async def test_a_piece_whose_entity_has_no_type_is_rejected_alone() -> None:
    document = {"pieces": [{"piece_id": "a", "content": "x", "entity_id": "nobody"}]}
    document["pieces"].append({"piece_id": "b", "content": "y"})
    store = FakeStore()
    result = await load_knowledge(document, "kb:x", ACME, deps(store, FakeEmbedder()))
    [rejected] = result.rejected
    assert (rejected.item, rejected.index) == ("PIECE", 0)
    assert rejected.reason.startswith("entity nobody: ")
    assert [c.metadata["pieceRef"] for c in store.chunks] == ["b"]


def test_a_file_mixing_the_formats_is_refused_per_item_with_the_field_named() -> None:
    mixed: dict[str, Any] = {
        "metadata": {
            "user:alice": {"entity_type": "user"},
            "user:bob": {"type": "user"},
        },
        "pieces": [
            {"piece_id": "p1", "content": "Alice runs LES."},
            {"id": "p2", "content": "Bob runs RANS.", "knowledgeType": "FACT"},
        ],
        "graph": {
            "nodes": [{"id": "technique:les"}, {"node_id": "technique:rans"}],
            "edges": [
                {
                    "source": "user:bob",
                    "relation": "USES",
                    "target": "technique:rans",
                    "evidence": ["p2"],
                },
                {
                    "source_id": "user:alice",
                    "target_id": "technique:rans",
                    "edge_type": "USES",
                    "properties": {"piece_id": "p1"},
                },
            ],
        },
    }
    loaded = read_file(mixed, "kb:mixed", ACME)
    assert loaded.format is DESIGN
    other = "is of the other knowledge-file format; this file is in the design's format"
    assert loaded.rejected == [
        Rejection("PIECE", 1, f"field 'id' {other}"),
        Rejection("NODE", 0, f"field 'id' {other}"),
        Rejection("EDGE", 0, f"field 'evidence' {other}"),
        Rejection("METADATA", 1, f"user:bob: field 'type' {other}"),
    ]
    assert [p.ref for p in loaded.request.pieces] == ["p1"]
    assert [n.key for n in loaded.request.nodes] == ["technique:rans"]
    assert list(loaded.request.metadata) == ["user:alice"]
    # The same mix led by a Kenning item is a Kenning file, refusing the design's items.
    led = {"pieces": [mixed["pieces"][1], mixed["pieces"][0]]}
    kenning = read_file(led, "kb:mixed", ACME)
    assert kenning.format is KENNING
    assert kenning.rejected == [
        Rejection(
            "PIECE",
            1,
            "field 'piece_id' is of the other knowledge-file format; this file is in Kenning's "
            "format",
        )
    ]


async def test_design_items_name_their_bad_field() -> None:
    document = {
        "pieces": [
            {"piece_id": "p", "content": "c", "knowledge_type": "rumour"},
            {"piece_id": "q", "content": "d"},
        ],
        "graph": {
            "nodes": [{"node_id": "a:b", "label": "A", "properties": {"label": "B"}}],
            "edges": [
                {
                    "source_id": "a:b",
                    "target_id": "c:d",
                    "edge_type": "X",
                    "properties": {"piece_id": 3},
                },
            ],
        },
    }
    result = await load_knowledge(document, "kb:bad", ACME, deps(FakeStore(), FakeEmbedder()))
    assert [(r.item, r.reason) for r in result.rejected] == [
        ("EDGE", "properties.piece_id must be a non-empty string"),
        ("NODE", "label differs from properties.label"),
        (
            "PIECE",
            "knowledge_type must be one of fact, instruction, preference, procedure, note, "
            "episodic",
        ),
    ]
