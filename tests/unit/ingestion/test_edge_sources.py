"""What each source says of an edge, on fakes: an edge citing no piece is stored with its
source's assertion as evidence, properties are kept per source and the newest is read, a
piece_id in properties is evidence, and bad properties are rejected, secret ones refused or
redacted as the policy says."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import EdgeView
from kenning.domain.ingestion.edge_sources import (
    Assertion,
    EvidenceKind,
    assertions_of,
    newest_properties,
    source_mark,
    stated,
)
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

ACME = Scope("acme", "web")
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"
NODES = (NodeRecord("person:ann"), NodeRecord("team:core"))
WHEN = datetime(2025, 1, 1, tzinfo=UTC)


def _request(*edges: EdgeRecord, pieces: tuple[GraphPiece, ...] = ()) -> GraphRequest:
    return GraphRequest(
        "org:chart",
        ACME,
        pieces=pieces,
        nodes=NODES,
        edges=edges,
        writer="key-1",
        observed_at=WHEN,
    )


def test_a_source_mark_is_stable_per_scope_and_urn() -> None:
    mark = source_mark(ACME, "org:chart")
    assert mark.startswith("asserted:") and len(mark) == len("asserted:") + 32
    assert mark == source_mark(ACME, "org:chart") != source_mark(Scope("beta"), "org:chart")


async def test_an_edge_citing_no_piece_is_asserted_with_its_properties_kept_apart() -> None:
    store = FakeStore()
    edge = EdgeRecord("person:ann", "MEMBER_OF", "team:core", (), {"since": 2019})
    result = await ingest_graph(_request(edge), deps(store, FakeEmbedder()))
    assert result.rejected == ()
    [stored] = store.edges
    mark = source_mark(ACME, "org:chart")
    assert stored.evidence_chunk_ids == (mark,)
    assert stored.properties["sourceProperties"] == {
        mark: {"properties": {"since": 2019}, "observedAt": "2025-01-01T00:00:00.000000Z"}
    }
    [assertion] = assertions_of(stored.properties["assertions"])
    assert (assertion.source_urn, assertion.writer) == ("org:chart", "key-1")
    view = EdgeView(
        1, "member_of", "person:ann", "team:core", ACME, ("c1",), assertions=(assertion,)
    )
    assert view.evidence_kinds == (EvidenceKind.TEXT, EvidenceKind.ASSERTED)
    assert view.confidence == pytest.approx(2 / 3)


async def test_a_piece_id_in_properties_is_evidence_not_a_property() -> None:
    store = FakeStore()
    piece = GraphPiece("p", "Ann is in the core team.")
    edge = EdgeRecord("person:ann", "MEMBER_OF", "team:core", (), {"piece_id": "p", "r": 1})
    await ingest_graph(_request(edge, pieces=(piece,)), deps(store, FakeEmbedder()))
    [stored] = store.edges
    assert stored.evidence_chunk_ids == (store.chunks[0].id,)
    assert "assertions" not in stored.properties
    [entry] = _map(stored.properties["sourceProperties"]).values()
    assert _map(entry)["properties"] == {"r": 1}


async def test_bad_properties_reject_the_edge_and_a_credential_refuses_the_request() -> None:
    store = FakeStore()
    odd = EdgeRecord("person:ann", "MEMBER_OF", "team:core", (), {"piece_id": ["p"]})
    result = await ingest_graph(_request(odd), deps(store, FakeEmbedder()))
    assert [(r.item, r.reason) for r in result.rejected] == [
        ("EDGE", "properties.piece_id must be a non-empty string")
    ]
    leaky = EdgeRecord("person:ann", "MEMBER_OF", "team:core", (), {"note": CREDENTIAL})
    store = FakeStore()
    with pytest.raises(SensitiveContentError) as raised:
        await ingest_graph(_request(leaky), deps(store, FakeEmbedder()))
    assert raised.value.field == "edges[0].properties.note"
    assert store.writes == 0
    redacting = replace(deps(store, FakeEmbedder()), secret_policy=SecretPolicy.REDACT)
    await ingest_graph(_request(leaky), redacting)
    [stored] = store.edges
    assert CREDENTIAL not in json.dumps(stored.properties)
    assert "[REDACTED:" in json.dumps(stored.properties)


def _map(value: object) -> dict[str, object]:
    assert isinstance(value, dict)
    return value


def test_the_newest_source_by_observed_time_gives_the_properties() -> None:
    older = stated("asserted:b", {"since": 2019}, WHEN, None)
    newer = stated("asserted:a", {"since": 2021}, datetime(2026, 1, 1, tzinfo=UTC), None)
    both = {**_map(older["sourceProperties"]), **_map(newer["sourceProperties"])}
    assert newest_properties(both) == {"since": 2021}
    assert newest_properties({}) == {} and newest_properties(None) == {}
    said = stated("asserted:a", {}, WHEN, Assertion("org:chart", None, WHEN))
    assert set(said) == {"assertions", "validFrom"}
    assert assertions_of(said["assertions"]) == (Assertion("org:chart", None, WHEN),)
