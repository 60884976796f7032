"""``ingest_graph``: pre-structured knowledge (pieces, nodes, edges citing pieces) stored as is.

Items that cannot be stored are rejected one by one with a reason (see ``graph_items``); the
rest is stored in one transaction. The ``metadata`` section (entity id -> type and properties)
is stored as nodes. An edge needs both endpoints (given in the request or already in the
graph at the scope); its evidence is the request's pieces it cites or, citing none, its
source's assertion (``edge_sources``), and its properties are kept as that source's.
Relation declarations given with the request (a knowledge file's) are stored in the same
transaction before its edges, so a relation declared ``ONE`` governs them already.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from kenning.domain.embedding import embed_texts
from kenning.domain.ingestion.chunking import chunk
from kenning.domain.ingestion.edge_sources import Assertion, source_mark, stated
from kenning.domain.ingestion.extraction_warnings import ExtractionWarning
from kenning.domain.ingestion.graph_items import (
    GraphPiece,
    GraphRequest,
    Items,
    Rejection,
    check_items,
    rejected_edges,
    request_size,
)
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.ports import WriteUnit
from kenning.domain.ingestion.relations import Declarations
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeRecord,
    IngestOutcome,
    IngestStatus,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
    source_identity,
)
from kenning.domain.off_loop import off_loop

__all__ = ["GraphOutcome", "GraphPiece", "GraphRequest", "Rejection", "ingest_graph"]
logger = logging.getLogger("kenning.ingestion")


@dataclass(frozen=True, slots=True)
class GraphOutcome:
    """What was stored and what was rejected."""

    outcome: IngestOutcome
    rejected: tuple[Rejection, ...]


Text = tuple[GraphPiece, str, int, str]  # piece, chunk id, ordinal, text


def _texts(request: GraphRequest, items: Items, limit: int) -> list[Text]:
    identity = source_identity(request.scope, request.source_urn)
    texts: list[Text] = []
    for piece in items.pieces.values():
        for part in chunk(piece.content, f"{identity}\x1f{piece.ref}", limit=limit):
            texts.append((piece, part.id, len(texts), part.content))
    return texts


async def ingest_graph(
    request: GraphRequest, deps: IngestDeps, declared: Declarations | None = None
) -> GraphOutcome:
    """Store the valid pieces, nodes and edges of ``request`` (and ``declared``'s relations,
    checked and allowed by the caller); reject the rest per item."""
    started = time.perf_counter()
    if deps.tombstones is not None:
        request = await deps.tombstones.guarded_graph(request)
    size = request_size(request)
    items = await off_loop(size, lambda: check_items(request, deps.secret_policy))
    if declared is not None:
        items.digest = declared.hashed_with(items.digest)
    digest, warnings = items.digest, tuple(items.warnings)
    if await deps.store.source_hash(request.scope, request.source_urn) == digest:
        skipped = _outcome(IngestStatus.SKIPPED_DUPLICATE, digest, warnings)
        return GraphOutcome(skipped, tuple(items.rejected))
    texts = await off_loop(size, lambda: _texts(request, items, deps.chunk_limit))
    embedded = [piece.embedding_text or text for piece, _, _, text in texts]
    vectors = await embed_texts(embedded, request.priority, deps.embedder)
    result = await deps.store.write(
        lambda unit: _store(unit, request, items, texts, vectors, declared)
    )
    if result is None:
        skipped = _outcome(IngestStatus.SKIPPED_DUPLICATE, digest, warnings)
        return GraphOutcome(skipped, tuple(items.rejected))
    replaced, kept, rejected = result
    logger.info(
        "ingestion.indexed",
        extra={
            "source_urn": request.source_urn,
            "scope": request.scope.describe(),
            "chunks": len(texts),
            "nodes": len(items.nodes),
            "edges": len(kept),
            "rejected": len(rejected),
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    outcome = IngestOutcome(
        status=IngestStatus.INDEXED,
        content_hash=digest,
        chunk_ids=tuple(t[1] for t in texts),
        nodes=tuple(sorted(items.nodes)),
        edges=tuple(kept),
        warnings=warnings,
        replaced=replaced,
    )
    return GraphOutcome(outcome, tuple(sorted(rejected, key=lambda r: (r.item, r.index))))


async def _store(
    unit: WriteUnit,
    request: GraphRequest,
    items: Items,
    texts: list[Text],
    vectors: Sequence[Sequence[float]],
    declared: Declarations | None,
) -> tuple[PurgeCounts, list[EdgeRecord], list[Rejection]] | None:
    """Replace the source; ``None`` when an identical ingest won. Edges whose endpoints
    are neither in the request nor in the graph are rejected here, inside the transaction,
    into a fresh list: a retried transaction must not report them twice."""
    nodes, edges, digest = items.nodes, items.edges, items.digest
    rejected = list(items.rejected)
    await unit.lock_source(request.scope, request.source_urn)
    current = await unit.source(request.scope, request.source_urn)
    if current is not None and current.content_hash == digest:
        return None
    removed, previous = await unit.remove_source(request.scope, request.source_urn)
    if declared is not None:
        await unit.declare_relations(request.scope.client_id, declared)
    endpoints = {k for e in edges.values() for k in (e.from_key, e.to_key)}
    entities = {p.entity_key for p in items.pieces.values() if p.entity_key}
    known = set(nodes) | await unit.existing_keys(
        request.scope, (endpoints | entities) - set(nodes)
    )
    kept = _kept_edges(request, items, known, texts, rejected)
    refs = _piece_refs(items, rejected)
    records = [
        _record(text, vector, request, items, refs)
        for text, vector in zip(texts, vectors, strict=True)
    ]
    await unit.write_chunks(records)
    stated = NodeProvenance(request.source_urn, items.observed_at)
    # An entity a piece names but nothing defines is a bare node of its key's type.
    bare = [NodeRecord(k, k.split(":", 1)[0]) for k in sorted(entities - known)]
    await unit.upsert_nodes(request.scope, [*nodes.values(), *bare], stated)
    await unit.upsert_edges(request.scope, kept)
    mentions = set(nodes) | entities | {k for e in kept for k in (e.from_key, e.to_key)}
    await unit.record_source(
        SourceRecord(
            request.scope,
            request.source_urn,
            request.kind,
            digest,
            None,
            request.connection_id,
            tuple(r.id for r in records),
            tuple(mentions),
        )
    )
    orphaned = await unit.delete_orphans(request.scope, set(previous) - mentions)
    return removed + PurgeCounts(vertices_deleted=orphaned), kept, rejected


def _piece_refs(items: Items, rejected: list[Rejection]) -> dict[str, set[str]]:
    """What each piece's chunks refer to: the piece's entity, and the ends of the stored
    edges that cite it."""
    refs: dict[str, set[str]] = {
        p.ref: {p.entity_key} for p in items.pieces.values() if p.entity_key
    }
    dropped = rejected_edges(rejected)
    for index, edge in items.edges.items():
        if index not in dropped:
            for ref in edge.evidence_chunk_ids:
                refs.setdefault(ref, set()).update((edge.from_key, edge.to_key))
    return refs


def _kept_edges(
    request: GraphRequest,
    items: Items,
    known: set[str],
    texts: list[Text],
    rejected: list[Rejection],
) -> list[EdgeRecord]:
    """The edges whose endpoints are ``known``, their evidence swapped from piece refs to the
    pieces' chunk ids (none: the source's assertion) and their properties kept as this
    source's; the others are added to ``rejected``."""
    chunk_ids: dict[str, list[str]] = {}
    for piece, chunk_id, _, _ in texts:
        chunk_ids.setdefault(piece.ref, []).append(chunk_id)
    mark, now = source_mark(request.scope, request.source_urn), datetime.now(UTC)
    kept: list[EdgeRecord] = []
    for index, edge in items.edges.items():
        missing = [k for k in (edge.from_key, edge.to_key) if k not in known]
        if missing:
            rejected.append(Rejection("EDGE", index, f"unknown endpoint {missing[0]}"))
            continue
        evidence = tuple(cid for ref in edge.evidence_chunk_ids for cid in chunk_ids[ref])
        asserted = None if evidence else Assertion(request.source_urn, request.writer, now)
        said = stated(mark, edge.properties, items.observed_at or now, asserted)
        kept.append(replace(edge, evidence_chunk_ids=evidence or (mark,), properties=said))
    return kept


def _record(
    text: Text,
    vector: Sequence[float],
    request: GraphRequest,
    items: Items,
    refs: dict[str, set[str]],
) -> ChunkRecord:
    piece, chunk_id, ordinal, content = text
    return ChunkRecord(
        id=chunk_id,
        source_urn=request.source_urn,
        ordinal=ordinal,
        kind=request.kind,
        scope=request.scope,
        content=content,
        embedding=tuple(vector),
        graph_refs=tuple(sorted(refs.get(piece.ref, ()))),
        content_hash=items.digest,
        knowledge_type=piece.knowledge_type.value if piece.knowledge_type else None,
        info_type=piece.info_type,
        tags=piece.tags,
        source_kind=request.source_kind,
        connection_id=request.connection_id,
        metadata={
            **piece.metadata,
            "pieceRef": piece.ref,
            **({"entityKey": piece.entity_key} if piece.entity_key else {}),
        },
        observed_at=items.observed_at,
    )


def _outcome(
    status: IngestStatus, digest: str, warnings: tuple[ExtractionWarning, ...]
) -> IngestOutcome:
    return IngestOutcome(
        status=status, content_hash=digest, chunk_ids=(), nodes=(), edges=(), warnings=warnings
    )
