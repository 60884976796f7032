"""Knowledge files and the metadata section on fakes: mapping, per-item rejections, limits."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest, Rejection, check_items
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.knowledge_file import MAX_FILE_CHARS, load_knowledge, read_file
from kenning.domain.ingestion.request import KnowledgeType, NodeRecord
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

ACME = Scope("acme", "web")
# A generated-looking AWS key id (the documented example is a placeholder and passes).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"

FILE: dict[str, Any] = {
    "metadata": {
        "user:john": {"type": "user", "properties": {"team": "auth", "name": "John"}},
        "auth": {"type": "service", "properties": {"tier": 1}},
        "broken": "not an object",
    },
    "pieces": [
        {"id": "p1", "content": "John owns the auth service.", "knowledgeType": "fact",
         "infoType": "context", "tags": ["team"], "embeddingText": "who owns auth"},
        {"id": "p2"},
        {"id": "p3", "content": "Always run the login tests.", "infoType": "instructions"},
    ],
    "graph": {
        "nodes": [{"id": "user:john", "type": "user", "properties": {"email": "j@x.io"}},
                  {"id": "lib:jwt", "colour": "red"}],
        "edges": [
            {"source": "user:john", "relation": "OWNS", "target": "service:auth",
             "evidence": ["p1"]},
            {"source": "service:auth", "relation": "USES", "target": "lib:jwt",
             "evidence": ["p2"]},
            {"source": "service:auth", "relation": "USES"},
        ],
    },
}  # fmt: skip


def test_a_file_maps_onto_one_graph_request() -> None:
    loaded = read_file(FILE, "kb:team", ACME)
    request = loaded.request
    assert (request.source_urn, request.scope, request.kind) == ("kb:team", ACME, "knowledge_file")
    assert request.pieces[0] == GraphPiece(
        "p1", "John owns the auth service.", KnowledgeType.FACT, "context", ("team",),
        "who owns auth",
    )  # fmt: skip
    assert [p.ref for p in request.pieces] == ["p1", "p3"]
    assert [n.key for n in request.nodes] == ["user:john"]
    assert [(e.from_key, e.edge_type, e.to_key) for e in request.edges] == [
        ("user:john", "OWNS", "service:auth"), ("service:auth", "USES", "lib:jwt"),
    ]  # fmt: skip
    assert request.metadata == FILE["metadata"]
    assert loaded.rejected == [
        Rejection("PIECE", 1, "content must be a non-empty string"),
        Rejection("NODE", 1, "unknown field 'colour'"),
        # Evidence is optional (an edge citing none is asserted); its target is not.
        Rejection("EDGE", 2, "target must be a non-empty string"),
    ]


async def test_loading_stores_the_valid_items_and_reports_the_rest_by_file_index() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    result = await load_knowledge(FILE, "kb:team", ACME, deps(store, embedder))
    assert result.outcome.status == "INDEXED"
    nodes = {n.key: n for n in store.nodes}
    # Metadata lays its properties over the node of the same key; ids get their type.
    assert nodes["user:john"] == NodeRecord(
        "user:john", "user", {"email": "j@x.io", "team": "auth", "name": "John"}
    )
    assert nodes["service:auth"] == NodeRecord("service:auth", "service", {"tier": 1})
    assert [(e.from_key, e.edge_type, e.to_key) for e in store.edges] == [
        ("user:john", "owns", "service:auth")
    ]
    # The second edge cites the malformed piece: reported at its own index in the file.
    assert [(r.item, r.index) for r in result.rejected] == [
        ("EDGE", 1), ("EDGE", 2), ("METADATA", 2), ("NODE", 1), ("PIECE", 1),
    ]  # fmt: skip
    assert result.rejected[0].reason == "unknown evidence piece p2"
    assert result.rejected[2].reason.startswith("broken: ")
    # The embedding text is what was embedded for p1; p3 embeds its content.
    assert embedder.batches == [["who owns auth", "Always run the login tests."]]
    again = await load_knowledge(FILE, "kb:team", ACME, deps(store, embedder))
    assert again.outcome.status == "SKIPPED_DUPLICATE"


@pytest.mark.parametrize(
    ("document", "field"),
    [([], "json"), ({"pieces": [], "extra": 1}, "json.extra"), ({"pieces": {}}, "json.pieces"),
     ({"graph": []}, "json.graph"), ({"metadata": []}, "json.metadata"),
     ({"pieces": [{"id": "p"}]}, "json"),
     ({"pieces": [{"id": "p", "content": "x" * MAX_FILE_CHARS}]}, "json")],
)  # fmt: skip
async def test_a_file_that_is_not_a_knowledge_file_is_refused_whole(
    document: object, field: str
) -> None:
    store = FakeStore()
    with pytest.raises(KenningError) as raised:
        await load_knowledge(document, "kb:x", ACME, deps(store, FakeEmbedder()))
    assert raised.value.field == field
    assert store.writes == 0


def _metadata(metadata: dict[str, object], policy: SecretPolicy = SecretPolicy.REJECT) -> Any:
    return check_items(GraphRequest("kb:m", ACME, metadata=metadata), policy)


def test_metadata_entries_are_checked_one_by_one() -> None:
    items = _metadata({
        "team:auth": {"properties": {"lead": "john"}},
        "x": {"type": "service", "properties": {"key": "reserved"}},
        "y": {"type": 3},
        "z": {"type": "service", "properties": [1]},
        "w": {"type": "service", "colour": "red"},
        "Jira:Task-1": {"type": "Ticket"},
    })  # fmt: skip
    assert items.nodes == {
        "team:auth": NodeRecord("team:auth", "team", {"lead": "john"}),
        "jira:task-1": NodeRecord("jira:task-1", "ticket", {}),
    }
    assert [(r.item, r.index, r.reason.split(":")[0]) for r in items.rejected] == [
        ("METADATA", 1, "x"), ("METADATA", 2, "y"), ("METADATA", 3, "z"), ("METADATA", 4, "w"),
    ]  # fmt: skip


def test_a_credential_in_metadata_refuses_the_whole_request() -> None:
    with pytest.raises(SensitiveContentError) as raised:
        _metadata({"user:john": {"properties": {"note": f"key {CREDENTIAL}"}}})
    assert raised.value.field == "metadata[0].properties.note"
    with pytest.raises(SensitiveContentError):
        _metadata({f"user:{CREDENTIAL}": {"properties": {}}})
    redacted = _metadata({"user:john": {"properties": {"note": f"key {CREDENTIAL}"}}},
                         SecretPolicy.REDACT)  # fmt: skip
    assert CREDENTIAL not in str(redacted.nodes["user:john"].properties)


async def test_a_credential_in_an_embedding_text_refuses_the_ingest() -> None:
    request = GraphRequest(
        "kb:e", ACME, pieces=(GraphPiece("p", "fine", embedding_text=f"k {CREDENTIAL}"),)
    )
    store = FakeStore()
    with pytest.raises(SensitiveContentError) as raised:
        await ingest_graph(request, deps(store, FakeEmbedder()))
    assert raised.value.field == "pieces[0].embeddingText"
    assert store.writes == 0
