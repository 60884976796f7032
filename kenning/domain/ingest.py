"""The ``ingest`` use case: one document in, chunks and an evidence-bearing graph stored."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from kenning.domain.chunking import Chunk, chunk
from kenning.domain.content_hash import IndexedPayload, content_hash
from kenning.domain.embedding import Embedder, EmbeddingError, EmbeddingErrorKind
from kenning.domain.ingest_rules import (
    check_relationship_strings,
    clean_content,
    clean_metadata,
    main_node,
    validate,
)
from kenning.domain.ingestion import (
    ChunkRecord,
    EdgeRecord,
    IngestOutcome,
    IngestRequest,
    IngestStatus,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)
from kenning.domain.ports import AliasResolver, KnowledgeStore, WriteUnit
from kenning.domain.references import Extraction, Relationship, apply_aliases, extract
from kenning.domain.secrets import SecretPolicy

logger = logging.getLogger("kenning.ingestion")


@dataclass(frozen=True, slots=True)
class IngestDeps:
    """The ports and policies one ingest runs with."""

    store: KnowledgeStore
    aliases: AliasResolver
    embedder: Embedder
    secret_policy: SecretPolicy = SecretPolicy.REJECT
    chunk_limit: int = 1500


@dataclass(frozen=True, slots=True)
class _Prepared:
    request: IngestRequest
    content: str
    metadata: dict[str, object]
    main_key: str | None
    extraction: Extraction
    digest: str


async def ingest(request: IngestRequest, deps: IngestDeps) -> IngestOutcome:
    """Validate, check secrets, extract, hash, chunk, embed and store in one transaction.

    Unchanged content (same hash) returns ``SKIPPED_DUPLICATE`` without embedding anything.
    """
    started = time.perf_counter()
    prepared = await _prepare(request, deps)
    stored = await deps.store.source_hash(request.scope, request.source_urn)
    if stored == prepared.digest:
        return _skipped(prepared, started)
    # Chunk ids derive from the source; the scope is part of a source's identity, so two
    # clients ingesting the same URN get distinct chunks.
    identity = "\x1f".join((request.scope.client_id, request.scope.project_id,
                            request.scope.group_id, request.source_urn))  # fmt: skip
    pieces = chunk(prepared.content, identity, limit=deps.chunk_limit)
    refs_by_chunk = await _chunk_refs(pieces, prepared, deps)
    vectors = await _embed(pieces, request.priority, deps.embedder)
    records = _chunk_records(pieces, vectors, refs_by_chunk, prepared)
    edges = _edges(prepared.extraction.relationships, pieces, refs_by_chunk)
    nodes = _nodes(prepared)

    async def store(unit: WriteUnit) -> PurgeCounts | None:
        await unit.lock_source(request.scope, request.source_urn)
        current = await unit.source(request.scope, request.source_urn)
        if current is not None and current.content_hash == prepared.digest:
            return None  # an identical concurrent ingest won the race
        removed, previous = await unit.remove_source(request.scope, request.source_urn)
        await unit.write_chunks(records)
        await unit.upsert_nodes(request.scope, nodes)
        await unit.upsert_edges(request.scope, edges)
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
        orphaned = await unit.delete_orphans(
            request.scope, set(previous) - {node.key for node in nodes}
        )
        return removed + PurgeCounts(vertices_deleted=orphaned)

    replaced = await deps.store.write(store)
    if replaced is None:
        return _skipped(prepared, started)
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
        edges=tuple(Relationship(e.from_key, e.edge_type, e.to_key) for e in edges),
        warnings=prepared.extraction.warnings,
        replaced=replaced,
    )


async def _prepare(request: IngestRequest, deps: IngestDeps) -> _Prepared:
    validate(request)
    main_key = main_node(request)
    content = clean_content(request.content, deps.secret_policy)
    metadata = clean_metadata(request.metadata, deps.secret_policy)
    check_relationship_strings(request.relationships)
    extraction = extract(content, main_key, request.relationships)
    keys = set(extraction.references) | ({main_key} if main_key else set())
    aliases = await deps.aliases.resolve(request.scope.client_id, keys)
    extraction = apply_aliases(extraction, aliases)
    if main_key is not None:
        main_key = aliases.get(main_key, main_key)
    digest = content_hash(
        IndexedPayload(
            source_urn=request.source_urn,
            content=content,
            kind=request.kind,
            main_node_key=main_key,
            scope=request.scope,
            knowledge_type=request.knowledge_type.value if request.knowledge_type else "",
            info_type=request.info_type or "",
            tags=request.tags,
            relationships=tuple(str(r) for r in extraction.relationships),
            metadata=metadata,
            source_kind=request.source_kind or "",
            connection_id=request.connection_id or "",
            external_id=request.external_id or "",
        )
    )
    return _Prepared(request, content, metadata, main_key, extraction, digest)


def _skipped(prepared: _Prepared, started: float) -> IngestOutcome:
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


async def _chunk_refs(
    pieces: Sequence[Chunk], prepared: _Prepared, deps: IngestDeps
) -> list[tuple[frozenset[str], frozenset[Relationship]]]:
    """Per chunk: the keys it mentions and the relationships written inside it."""
    found: list[Extraction] = [extract(piece.content, prepared.main_key) for piece in pieces]
    keys = set().union(*(e.references for e in found))
    aliases = await deps.aliases.resolve(prepared.request.scope.client_id, keys)
    result = []
    for extraction in found:
        resolved = apply_aliases(extraction, aliases)
        refs = set(resolved.references)
        if prepared.main_key:
            refs.add(prepared.main_key)
        result.append((frozenset(refs), frozenset(resolved.relationships)))
    return result


async def _embed(pieces: Sequence[Chunk], priority: int, embedder: Embedder) -> list[list[float]]:
    vectors = await embedder.embed([piece.content for piece in pieces], priority=priority)
    if len(vectors) != len(pieces) or any(len(v) != embedder.dimension for v in vectors):
        raise EmbeddingError(
            f"the embedder returned {len(vectors)} vectors for {len(pieces)} chunks or a "
            f"dimension other than {embedder.dimension}",
            kind=EmbeddingErrorKind.PERMANENT,
        )
    return vectors


def _chunk_records(
    pieces: Sequence[Chunk],
    vectors: Sequence[Sequence[float]],
    refs: Sequence[tuple[frozenset[str], frozenset[Relationship]]],
    prepared: _Prepared,
) -> list[ChunkRecord]:
    request = prepared.request
    return [
        ChunkRecord(
            id=piece.id,
            source_urn=request.source_urn,
            ordinal=piece.ordinal,
            kind=request.kind,
            scope=request.scope,
            content=piece.content,
            embedding=tuple(vector),
            graph_refs=tuple(sorted(chunk_refs)),
            content_hash=prepared.digest,
            knowledge_type=request.knowledge_type.value if request.knowledge_type else None,
            info_type=request.info_type,
            tags=request.tags,
            source_kind=request.source_kind,
            connection_id=request.connection_id,
            external_id=request.external_id,
            revision=request.revision,
            metadata=prepared.metadata,
        )
        for piece, vector, (chunk_refs, _) in zip(pieces, vectors, refs, strict=True)
    ]


def _edges(
    relationships: Sequence[Relationship],
    pieces: Sequence[Chunk],
    refs: Sequence[tuple[frozenset[str], frozenset[Relationship]]],
) -> list[EdgeRecord]:
    """Evidence is the chunks that state the relationship; a relationship given outside the
    text (the ``relationships`` input, or a block split across chunks) is supported by the
    whole document, so every chunk is its evidence."""
    every = tuple(piece.id for piece in pieces)
    edges = []
    for rel in relationships:
        stating = tuple(p.id for p, (_, rels) in zip(pieces, refs, strict=True) if rel in rels)
        edges.append(EdgeRecord(rel.from_key, rel.edge_type, rel.to_key, stating or every))
    return edges


def _nodes(prepared: _Prepared) -> list[NodeRecord]:
    keys = set(prepared.extraction.references)
    if prepared.main_key:
        keys.add(prepared.main_key)
    for rel in prepared.extraction.relationships:
        keys.update((rel.from_key, rel.to_key))
    return [NodeRecord(key=key, type=key.split(":", 1)[0]) for key in sorted(keys)]
