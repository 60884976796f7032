"""The pure steps of ``ingest``: check, resolve aliases, hash, chunk, and turn a document
into chunk records, nodes and evidence-bearing edges. No I/O; ``ingest.py`` runs them (off the
event loop when the document is large) between its reads and its one write."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from kenning.domain.ingestion.chunking import Chunk, chunk
from kenning.domain.ingestion.content_hash import IndexedPayload, content_hash
from kenning.domain.ingestion.extraction_warnings import key_warning
from kenning.domain.ingestion.references import (
    Extraction,
    Relationship,
    apply_aliases,
    extract,
)
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeRecord,
    IngestRequest,
    NodeRecord,
    source_identity,
)
from kenning.domain.ingestion.rules import check_request, main_node
from kenning.domain.ingestion.secrets.scan import SecretPolicy


@dataclass(frozen=True, slots=True)
class Checked:
    request: IngestRequest  # content and metadata under the secret policy
    main_key: str | None
    extraction: Extraction


@dataclass(frozen=True, slots=True)
class Prepared:
    request: IngestRequest
    content: str
    metadata: Mapping[str, object]
    main_key: str | None
    extraction: Extraction
    digest: str


@dataclass(frozen=True, slots=True)
class Chunked:
    pieces: list[Chunk]
    found: list[Extraction]  # per piece, before alias resolution


@dataclass(frozen=True, slots=True)
class DocumentGraph:
    refs: list[tuple[frozenset[str], frozenset[Relationship]]]  # per piece
    nodes: list[NodeRecord]
    edges: list[EdgeRecord]


def check(request: IngestRequest, policy: SecretPolicy) -> Checked:
    cleaned = check_request(request, policy)
    main_key = main_node(cleaned)
    extraction = extract(cleaned.content, main_key, cleaned.relationships)
    if main_key is not None and cleaned.main_node_key is not None:
        warning = key_warning("mainNodeKey", 1, cleaned.main_node_key.strip(), main_key)
        if warning is not None:
            extraction = replace(extraction, warnings=(warning, *extraction.warnings))
    return Checked(cleaned, main_key, extraction)


def resolve(checked: Checked, aliases: Mapping[str, str]) -> Prepared:
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
    if request.supersedes:  # saying more changes the work; saying nothing keeps old hashes
        named = "\x1f".join(sorted(set(request.supersedes)))
        digest = hashlib.sha256(f"{digest}\x1e{named}".encode()).hexdigest()
    return Prepared(request, request.content, request.metadata, main_key, extraction, digest)


def chunk_document(prepared: Prepared, limit: int) -> Chunked:
    request = prepared.request
    # Chunk ids derive from the source's identity (its scope and URN).
    pieces = chunk(
        prepared.content, source_identity(request.scope, request.source_urn), limit=limit
    )
    return Chunked(pieces, [extract(piece.content, prepared.main_key) for piece in pieces])


def document_graph(
    prepared: Prepared, chunked: Chunked, aliases: Mapping[str, str]
) -> DocumentGraph:
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
    return DocumentGraph(refs, _nodes(prepared), edges)


def chunk_records(
    pieces: Sequence[Chunk],
    vectors: Sequence[Sequence[float]],
    refs: Sequence[tuple[frozenset[str], frozenset[Relationship]]],
    prepared: Prepared,
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
            observed_at=request.observed_at,
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


def _nodes(prepared: Prepared) -> list[NodeRecord]:
    keys = set(prepared.extraction.references)
    if prepared.main_key:
        keys.add(prepared.main_key)
    for rel in prepared.extraction.relationships:
        keys.update((rel.from_key, rel.to_key))
    return [NodeRecord(key=key, type=key.split(":", 1)[0]) for key in sorted(keys)]
