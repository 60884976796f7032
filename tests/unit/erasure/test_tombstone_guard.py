"""Tombstones on a later write: under redact the names go from content and metadata and the
main node, relationships, tags, nodes and edges naming the subject are dropped; under reject
the first field naming it is refused; an identifier naming it is refused in either mode; the
error names the field, never the name."""

from __future__ import annotations

import dataclasses

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.erasure.model import TombstoneMode
from kenning.domain.erasure.names import NameMatch
from kenning.domain.erasure.tombstone import (
    ErasedSubjectError,
    Tombstones,
    guard_graph,
    guard_request,
)
from kenning.domain.errors import ErrorCode
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.request import EdgeRecord, IngestRequest, NodeRecord

ANN = NameMatch.of("acme", ["Ann Lee", "person:ann-lee", "ann-lee"])
REQUEST = IngestRequest(
    source_urn="mail:1",
    kind="mail",
    content="Ann Lee wrote to Bob.",
    scope=Scope("acme"),
    main_node_key="person:ann-lee",
    tags=("ann lee", "inbox"),
    metadata={"from": "ANN LEE", "to": ["Bob"]},
    relationships=("person:ann-lee|knows|person:bob", "person:bob|likes|drink:tea"),
)


def test_redact_mode_keeps_the_write_without_her() -> None:
    kept = guard_request(REQUEST, ANN, TombstoneMode.REDACT)
    assert kept.content == "[erased] wrote to Bob."
    assert kept.metadata == {"from": "[erased]", "to": ["Bob"]}
    assert kept.main_node_key is None and kept.tags == ("inbox",)
    assert kept.relationships == ("person:bob|likes|drink:tea",)
    assert kept.source_urn == "mail:1"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({}, "content"),
        ({"content": "Hi"}, "mainNodeKey"),
        ({"content": "Hi", "main_node_key": None}, "relationships[0]"),
        ({"content": "Hi", "main_node_key": None, "relationships": ()}, "tags[0]"),
        ({"content": "Hi", "main_node_key": None, "relationships": (), "tags": ()}, "metadata"),
    ],
)
def test_reject_mode_refuses_the_first_field_naming_her(
    changes: dict[str, object], field: str
) -> None:
    request = dataclasses.replace(REQUEST, **changes)  # type: ignore[arg-type]
    with pytest.raises(ErasedSubjectError) as raised:
        guard_request(request, ANN, TombstoneMode.REJECT)
    assert (raised.value.code, raised.value.field) == (ErrorCode.ERASED_SUBJECT, field)
    assert "ann" not in raised.value.message.lower()


@pytest.mark.parametrize("mode", list(TombstoneMode))
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"source_urn": "notes:ann-lee"}, "sourceUrn"),
        ({"external_id": "Ann Lee"}, "externalId"),
        ({"supersedes": ("mail:0", "notes:person:ann-lee")}, "supersedes[1]"),
    ],
)
def test_an_identifier_naming_her_is_refused_in_either_mode(
    mode: TombstoneMode, changes: dict[str, object], field: str
) -> None:
    request = dataclasses.replace(REQUEST, **changes)  # type: ignore[arg-type]
    with pytest.raises(ErasedSubjectError) as raised:
        guard_request(request, ANN, mode)
    assert raised.value.field == field


def test_a_write_naming_no_erased_subject_is_unchanged() -> None:
    bob = NameMatch.of("acme", ["Bobby Tables"])
    for mode in TombstoneMode:
        assert guard_request(REQUEST, bob, mode) == REQUEST


GRAPH = GraphRequest(
    source_urn="graph:1",
    scope=Scope("acme"),
    pieces=(
        GraphPiece(
            "p1",
            "Ann Lee mentors Bob.",
            tags=("ann-lee", "team"),
            metadata={"by": "Ann Lee"},
            embedding_text="Ann Lee",
        ),
    ),
    nodes=(
        NodeRecord("person:ann-lee", "person", {"name": "Ann Lee"}),
        NodeRecord("person:bob", "person", {"mentor": "Ann Lee"}),
    ),
    edges=(
        EdgeRecord("person:ann-lee", "mentors", "person:bob", ("p1",)),
        EdgeRecord("person:bob", "likes", "drink:tea", ("p1",)),
    ),
    metadata={"person:ann-lee": {"type": "person"}, "bob": {"type": "person", "note": "ann lee"}},
)


def test_a_structured_write_loses_her_nodes_and_edges_and_her_name() -> None:
    kept = guard_graph(GRAPH, ANN, TombstoneMode.REDACT)
    piece = kept.pieces[0]
    assert (piece.content, piece.embedding_text) == ("[erased] mentors Bob.", "[erased]")
    assert piece.tags == ("team",) and piece.metadata == {"by": "[erased]"}
    assert [(n.key, dict(n.properties)) for n in kept.nodes] == [
        ("person:bob", {"mentor": "[erased]"})
    ]
    assert [e.from_key for e in kept.edges] == ["person:bob"]
    assert kept.metadata == {"bob": {"type": "person", "note": "[erased]"}}


def test_a_structured_write_naming_her_is_refused_under_reject() -> None:
    with pytest.raises(ErasedSubjectError) as raised:
        guard_graph(GRAPH, ANN, TombstoneMode.REJECT)
    assert raised.value.field == "pieces[0]"


class Book:
    def __init__(self, match: NameMatch) -> None:
        self.match_ = match
        self.asked: list[str] = []

    async def match(self, client_id: str) -> NameMatch:
        self.asked.append(client_id)
        return self.match_ if client_id == "acme" else NameMatch.stored(client_id, {})


async def test_tombstones_read_the_writing_clients_book() -> None:
    book = Book(ANN)
    guard = Tombstones(book, TombstoneMode.REDACT)
    assert (await guard.guarded(REQUEST)).content == "[erased] wrote to Bob."
    other = IngestRequest(
        source_urn="mail:1", kind="mail", content="Ann Lee", scope=Scope("globex")
    )
    assert await guard.guarded(other) == other
    assert book.asked == ["acme", "globex"]
