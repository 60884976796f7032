"""The ``ingest`` use case: one document in, chunks and an evidence-bearing graph stored."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from kenning.domain.embedding import Embedder, embed_texts
from kenning.domain.ingestion._document import (
    DocumentGraph,
    Prepared,
    check,
    chunk_document,
    chunk_records,
    document_graph,
    resolve,
)
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.ports import AliasResolver, KnowledgeStore, WriteGuard, WriteUnit
from kenning.domain.ingestion.request import (
    ChunkRecord,
    IngestOutcome,
    IngestRequest,
    IngestStatus,
    PurgeCounts,
    SourceRecord,
)
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.off_loop import off_loop

logger = logging.getLogger("kenning.ingestion")


@dataclass(frozen=True, slots=True)
class IngestDeps:
    """The ports and policies one ingest runs with."""

    store: KnowledgeStore
    aliases: AliasResolver
    embedder: Embedder
    secret_policy: SecretPolicy = SecretPolicy.REJECT
    chunk_limit: int = 1500
    # Erased subjects of the writing client (None: none checked, as in unit tests).
    tombstones: WriteGuard | None = None


@dataclass(frozen=True, slots=True)
class _Written:
    records: list[ChunkRecord]  # embedded, ready to insert
    graph: DocumentGraph


async def ingest(request: IngestRequest, deps: IngestDeps) -> IngestOutcome:
    """Validate, check secrets, extract, hash, chunk, embed and store in one transaction.

    Unchanged content (same hash) returns ``SKIPPED_DUPLICATE`` without embedding anything.
    The pure steps run off the event loop when the document is large (see ``off_loop``).
    """
    started = time.perf_counter()
    if deps.tombstones is not None:
        request = await deps.tombstones.guarded(request)
    size = len(request.content) + sum(map(len, request.relationships))
    checked = await off_loop(size, lambda: check(request, deps.secret_policy))
    keys = set(checked.extraction.references) | ({checked.main_key} if checked.main_key else set())
    aliases = await deps.aliases.resolve(request.scope.client_id, keys)
    prepared = await off_loop(size, lambda: resolve(checked, aliases))
    stored = await deps.store.source_hash(request.scope, request.source_urn)
    if stored == prepared.digest:
        return _skipped(prepared, started)
    written = await _indexed(prepared, deps, size)
    replaced = await deps.store.write(lambda unit: _store(unit, prepared, written))
    if replaced is None:
        return _skipped(prepared, started)
    records, nodes, edges = written.records, written.graph.nodes, written.graph.edges
    logger.info(
        "ingestion.indexed",
        extra={
            "source_urn": request.source_urn,
            "scope": request.scope.describe(),
            "chunks": len(records),
            "nodes": len(nodes),
            "edges": len(edges),
            "replaced_chunks": replaced.chunks,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return IngestOutcome(
        status=IngestStatus.INDEXED,
        content_hash=prepared.digest,
        chunk_ids=tuple(r.id for r in records),
        nodes=tuple(n.key for n in nodes),
        edges=tuple(edges),
        warnings=prepared.extraction.warnings,
        replaced=replaced,
    )


async def _indexed(prepared: Prepared, deps: IngestDeps, size: int) -> _Written:
    """Chunk, resolve the chunks' aliases, build the graph and embed: all before the write."""
    request = prepared.request
    chunked = await off_loop(size, lambda: chunk_document(prepared, deps.chunk_limit))
    keys = set().union(*(e.references for e in chunked.found))
    chunk_aliases = await deps.aliases.resolve(request.scope.client_id, keys)
    graph = await off_loop(size, lambda: document_graph(prepared, chunked, chunk_aliases))
    texts = [piece.content for piece in chunked.pieces]
    vectors = await embed_texts(texts, request.priority, deps.embedder)
    records = await off_loop(
        size, lambda: chunk_records(chunked.pieces, vectors, graph.refs, prepared)
    )
    return _Written(records, graph)


async def _store(unit: WriteUnit, prepared: Prepared, written: _Written) -> PurgeCounts | None:
    """Replace the source's chunks and mentions; ``None`` when an identical ingest won."""
    request, records, nodes = prepared.request, written.records, written.graph.nodes
    await unit.lock_source(request.scope, request.source_urn)
    current = await unit.source(request.scope, request.source_urn)
    if current is not None and current.content_hash == prepared.digest:
        return None  # an identical concurrent ingest won the race
    # Chunks and mentions are written only with their source row, under this lock: a new
    # source has nothing to remove, and skipping the three DELETEs saves their round trips.
    removed, previous = (
        (PurgeCounts(), [])
        if current is None
        else await unit.remove_source(request.scope, request.source_urn)
    )
    # When the source says it held: the writer's time, else the source's own date.
    at = request.observed_at or (records[0].observed_at if records else None)
    await unit.write_chunks(records)
    await unit.upsert_nodes(request.scope, nodes, NodeProvenance(request.source_urn, at))
    await unit.upsert_edges(request.scope, written.graph.edges)
    if request.supersedes:
        await unit.supersede(request.scope, request.supersedes, request.source_urn, at)
    await unit.record_source(
        SourceRecord(
            scope=request.scope,
            source_urn=request.source_urn,
            kind=request.kind,
            content_hash=prepared.digest,
            main_node_key=prepared.main_key,
            connection_id=request.connection_id,
            chunk_ids=tuple(r.id for r in records),
            mentions=tuple(n.key for n in nodes),
        )
    )
    # Keys mentioned again cannot be orphans; leaving them out also spares an exclusive
    # lock on keys this unit already holds shared.
    orphaned = await unit.delete_orphans(request.scope, set(previous) - {n.key for n in nodes})
    return removed + PurgeCounts(vertices_deleted=orphaned)


def _skipped(prepared: Prepared, started: float) -> IngestOutcome:
    logger.info(
        "ingestion.skipped.duplicate",
        extra={
            "source_urn": prepared.request.source_urn,
            "scope": prepared.request.scope.describe(),
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return IngestOutcome(
        status=IngestStatus.SKIPPED_DUPLICATE,
        content_hash=prepared.digest,
        chunk_ids=(),
        nodes=(),
        edges=(),
        warnings=prepared.extraction.warnings,
    )
