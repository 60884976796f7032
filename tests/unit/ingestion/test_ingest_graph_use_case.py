"""``ingest_graph`` over the fakes of its ports: what a retried transaction reports."""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.request import EdgeRecord, IngestStatus, NodeRecord
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps


def graph_with_an_unknown_endpoint() -> GraphRequest:
    return GraphRequest(
        source_urn="urn:graph",
        scope=Scope("acme"),
        pieces=(GraphPiece("p1", "Billing calls the ledger and the mailer."),),
        nodes=(NodeRecord("service:billing"), NodeRecord("service:mailer")),
        edges=(
            EdgeRecord("service:billing", "calls", "service:ledger", ("p1",)),
            EdgeRecord("service:billing", "calls", "service:mailer", ("p1",)),
        ),
    )


async def test_a_retried_transaction_reports_each_rejected_edge_once() -> None:
    store = FakeStore(retries=2)
    result = await ingest_graph(graph_with_an_unknown_endpoint(), deps(store, FakeEmbedder()))
    assert result.outcome.status is IngestStatus.INDEXED
    assert [(r.item, r.index, r.reason) for r in result.rejected] == [
        ("EDGE", 0, "unknown endpoint service:ledger")
    ]
    assert [(e.from_key, e.to_key) for e in store.edges] == [("service:billing", "service:mailer")]


async def test_a_pieces_metadata_rides_on_its_chunks_and_counts_in_the_content_hash() -> None:
    store, embedder = FakeStore(), FakeEmbedder()
    first = GraphPiece("p1", "Totals per region.", metadata={"page": 3, "sectionPath": ["Q3"]})
    request = GraphRequest(source_urn="file:report", scope=Scope("acme"), pieces=(first,))
    assert (await ingest_graph(request, deps(store, embedder))).outcome.status.value == "INDEXED"
    assert [dict(c.metadata) for c in store.chunks] == [
        {"page": 3, "sectionPath": ["Q3"], "pieceRef": "p1"}
    ]
    again = await ingest_graph(request, deps(store, embedder))
    assert again.outcome.status is IngestStatus.SKIPPED_DUPLICATE
    moved = GraphPiece("p1", "Totals per region.", metadata={"page": 4, "sectionPath": ["Q3"]})
    request = GraphRequest(source_urn="file:report", scope=Scope("acme"), pieces=(moved,))
    assert (await ingest_graph(request, deps(store, embedder))).outcome.status.value == "INDEXED"
    assert store.chunks[-1].metadata["page"] == 4
