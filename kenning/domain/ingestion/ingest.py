"""The ``ingest`` use case: one document in, chunks and an evidence-bearing graph stored."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from kenning.domain.embedding import Embedder, embed_texts
from kenning.domain.ingestion.chunking import Chunk, chunk
from kenning.domain.ingestion.content_hash import IndexedPayload, content_hash
from kenning.domain.ingestion.extraction_warnings import key_warning
from kenning.domain.ingestion.ports import AliasResolver, KnowledgeStore, WriteUnit
from kenning.domain.ingestion.references import (
    Extraction,
    Relationship,
    apply_aliases,
    extract,
)
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeRecord,
    IngestOutcome,
    IngestRequest,
    IngestStatus,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)
from kenning.domain.ingestion.rules import check_request, main_node
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


@dataclass(frozen=True, slots=True)
class _Checked:
    request: IngestRequest  # content and metadata under the secret policy
    main_key: str | None
    extraction: Extraction


@dataclass(frozen=True, slots=True)
class _Prepared:
    request: IngestRequest
    content: str
    metadata: Mapping[str, object]
    main_key: str | None
    extraction: Extraction
    digest: str


@dataclass(frozen=True, slots=True)
class _Chunked:
    pieces: list[Chunk]
    found: list[Extraction]  # per piece, before alias resolution


@dataclass(frozen=True, slots=True)
class _Graph:
    refs: list[tuple[frozenset[str], frozenset[Relationship]]]  # per piece
    nodes: list[NodeRecord]
    edges: list[EdgeRecord]


async def ingest(request: IngestRequest, deps: IngestDeps) -> IngestOutcome:
    """Validate, check secrets, extract, hash, chunk, embed and store in one transaction.

    Unchanged content (same hash) returns ``SKIPPED_DUPLICATE`` without embedding anything.
    The pure steps run off the event loop when the document is large (see ``off_loop``).
    """
    started = time.perf_counter()
    size = len(request.content) + sum(map(len, request.relationships))
    checked = await off_loop(size, lambda: _check(request, deps.secret_policy))
    keys = set(checked.extraction.references) | ({checked.main_key} if checked.main_key else set())
    aliases = await deps.aliases.resolve(request.scope.client_id, keys)
    prepared = await off_loop(size, lambda: _resolve(checked, aliases))
    stored = await deps.store.source_hash(request.scope, request.source_urn)
    if stored == prepared.digest:
        return _skipped(prepared, started)
    chunked = await off_loop(size, lambda: _chunk(prepared, deps.chunk_limit))
    keys = set().union(*(e.references for e in chunked.found))
    chunk_aliases = await deps.aliases.resolve(request.scope.client_id, keys)
    graph = await off_loop(size, lambda: _graph(prepared, chunked, chunk_aliases))
    texts = [piece.content for piece in chunked.pieces]
    vectors = await embed_texts(texts, request.priority, deps.embedder)
    records = await off_loop(
        size, lambda: _chunk_records(chunked.pieces, vectors, graph.refs, prepared)
    )
    nodes, edges = graph.nodes, graph.edges

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


def _check(request: IngestRequest, policy: SecretPolicy) -> _Checked:
    cleaned = check_request(request, policy)
    main_key = main_node(cleaned)
    extraction = extract(cleaned.content, main_key, cleaned.relationships)
    if main_key is not None and cleaned.main_node_key is not None:
        warning = key_warning("mainNodeKey", 1, cleaned.main_node_key.strip(), main_key)
        if warning is not None:
            extraction = replace(extraction, warnings=(warning, *extraction.warnings))
    return _Checked(cleaned, main_key, extraction)


def _resolve(checked: _Checked, aliases: Mapping[str, str]) -> _Prepared:
    request, main_key = checked.request, checked.main_key
    extraction = apply_aliases(checked.extraction, aliases)
    if main_key is not None:
        main_key = aliases.get(main_key, main_key)
    digest = content_hash(
        IndexedPayload(
            source_urn=request.source_urn,
            content=request.content,
            kind=request.kind,
            main_node_key=main_key,
            scope=request.scope,
            knowledge_type=request.knowledge_type.value if request.knowledge_type else "",
            info_type=request.info_type or "",
            tags=request.tags,
            relationships=tuple(str(r) for r in extraction.relationships),
            metadata=request.metadata,
            source_kind=request.source_kind or "",
            connection_id=request.connection_id or "",
            external_id=request.external_id or "",
        )
    )
    return _Prepared(request, request.content, request.metadata, main_key, extraction, digest)


def _chunk(prepared: _Prepared, limit: int) -> _Chunked:
    request = prepared.request
    # Chunk ids derive from the source; the scope is part of a source's identity, so two
    # clients ingesting the same URN get distinct chunks.
    identity = "\x1f".join((request.scope.client_id, request.scope.project_id,
                            request.scope.group_id, request.source_urn))  # fmt: skip
    pieces = chunk(prepared.content, identity, limit=limit)
    return _Chunked(pieces, [extract(piece.content, prepared.main_key) for piece in pieces])


def _graph(prepared: _Prepared, chunked: _Chunked, aliases: Mapping[str, str]) -> _Graph:
    """Per chunk: the keys it mentions and the relationships written inside it; then the
    nodes and evidence-bearing edges of the whole document."""
    refs = []
    for extraction in chunked.found:
        resolved = apply_aliases(extraction, aliases)
        keys = set(resolved.references)
        if prepared.main_key:
            keys.add(prepared.main_key)
        refs.append((frozenset(keys), frozenset(resolved.relationships)))
    edges = _edges(prepared.extraction.relationships, chunked.pieces, refs)
    return _Graph(refs, _nodes(prepared), edges)


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
    stating: dict[Relationship, list[str]] = {}
    for piece, (_, rels) in zip(pieces, refs, strict=True):
        for rel in rels:
            stating.setdefault(rel, []).append(piece.id)
    return [
        EdgeRecord(rel.from_key, rel.edge_type, rel.to_key, tuple(stating.get(rel, ())) or every)
        for rel in relationships
    ]


def _nodes(prepared: _Prepared) -> list[NodeRecord]:
    keys = set(prepared.extraction.references)
    if prepared.main_key:
        keys.add(prepared.main_key)
    for rel in prepared.extraction.relationships:
        keys.update((rel.from_key, rel.to_key))
    return [NodeRecord(key=key, type=key.split(":", 1)[0]) for key in sorted(keys)]
