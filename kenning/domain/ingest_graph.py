"""``ingest_graph``: pre-structured knowledge (pieces, nodes, edges citing pieces) stored as is.

Items that cannot be stored are rejected one by one with a reason; the rest is stored in one
transaction. An edge needs both endpoints (given in the request or already in the graph at
the scope) and at least one of the request's pieces as evidence.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kenning.domain.chunking import chunk
from kenning.domain.content_hash import IndexedPayload, content_hash
from kenning.domain.errors import KenningError, TooLargeError, ValidationError
from kenning.domain.ingest import IngestDeps
from kenning.domain.ingest_rules import check_relationship_strings, clean_content, clean_metadata
from kenning.domain.ingestion import (
    ChunkRecord,
    EdgeRecord,
    IngestOutcome,
    IngestStatus,
    KnowledgeType,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)
from kenning.domain.keys import canonicalize_key, normalize_edge_type, normalize_key, parse_key
from kenning.domain.ports import WriteUnit
from kenning.domain.references import Relationship
from kenning.domain.scope import Scope

logger = logging.getLogger("kenning.ingestion")
MAX_ITEMS = 5_000


@dataclass(frozen=True, slots=True)
class GraphPiece:
    """A piece of text the request's edges may cite as evidence by ``ref``."""

    ref: str
    content: str
    knowledge_type: KnowledgeType | None = None
    info_type: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphNode:
    """A vertex with its type and properties."""

    key: str
    type: str | None = None
    properties: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """An edge citing pieces (by ref) as its evidence."""

    from_key: str
    edge_type: str
    to_key: str
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GraphRequest:
    """One structured ingest."""

    source_urn: str
    scope: Scope
    kind: str = "graph"
    pieces: tuple[GraphPiece, ...] = ()
    nodes: tuple[GraphNode, ...] = ()
    edges: tuple[GraphEdge, ...] = ()
    connection_id: str | None = None
    source_kind: str | None = None
    priority: int = 3


@dataclass(frozen=True, slots=True)
class Rejection:
    """An item that was not stored, and why."""

    item: str  # PIECE | NODE | EDGE
    index: int
    reason: str


@dataclass(frozen=True, slots=True)
class GraphOutcome:
    """What was stored and what was rejected."""

    outcome: IngestOutcome
    rejected: tuple[Rejection, ...]


def _canonical(raw: str, field: str) -> str:
    parse_key(raw, field=field)
    return canonicalize_key(normalize_key(raw))


def _check(request: GraphRequest) -> None:
    if not request.source_urn.strip():
        raise ValidationError("sourceUrn is required", field="sourceUrn")
    total = len(request.pieces) + len(request.nodes) + len(request.edges)
    if total == 0:
        raise ValidationError("nothing to ingest: give pieces, nodes or edges", field="input")
    if total > MAX_ITEMS:
        raise TooLargeError(f"at most {MAX_ITEMS} items per request", field="input")


async def ingest_graph(request: GraphRequest, deps: IngestDeps) -> GraphOutcome:
    """Store the valid pieces, nodes and edges of ``request``; reject the rest per item."""
    started = time.perf_counter()
    _check(request)
    rejected: list[Rejection] = []
    pieces = _valid_pieces(request, deps, rejected)
    nodes = _valid_nodes(request, deps, rejected)
    edges = _parsed_edges(request, pieces, rejected)
    digest = _digest(request, pieces, nodes, edges)
    if await deps.store.source_hash(request.scope, request.source_urn) == digest:
        return GraphOutcome(_outcome(IngestStatus.SKIPPED_DUPLICATE, digest), tuple(rejected))
    identity = "\x1f".join((request.scope.client_id, request.scope.project_id,
                            request.scope.group_id, request.source_urn))  # fmt: skip
    texts: list[tuple[GraphPiece, str, int, str]] = []  # piece, chunk id, ordinal, text
    for piece in pieces.values():
        for part in chunk(piece.content, f"{identity}\x1f{piece.ref}", limit=deps.chunk_limit):
            texts.append((piece, part.id, len(texts), part.content))
    vectors = await deps.embedder.embed([t[3] for t in texts], priority=request.priority)
    chunk_ids: dict[str, list[str]] = {}
    for piece, chunk_id, _, _ in texts:
        chunk_ids.setdefault(piece.ref, []).append(chunk_id)

    async def store(unit: WriteUnit) -> tuple[PurgeCounts, list[EdgeRecord]] | None:
        await unit.lock_source(request.scope, request.source_urn)
        current = await unit.source(request.scope, request.source_urn)
        if current is not None and current.content_hash == digest:
            return None
        removed, previous = await unit.remove_source(request.scope, request.source_urn)
        endpoints = {k for e in edges.values() for k in (e.from_key, e.to_key)}
        known = set(nodes) | await unit.existing_keys(request.scope, endpoints - set(nodes))
        kept: list[EdgeRecord] = []
        for index, edge in edges.items():
            missing = [k for k in (edge.from_key, edge.to_key) if k not in known]
            if missing:
                rejected.append(Rejection("EDGE", index, f"unknown endpoint {missing[0]}"))
                continue
            evidence = tuple(cid for ref in edge.evidence for cid in chunk_ids[ref])
            kept.append(EdgeRecord(edge.from_key, edge.edge_type, edge.to_key, evidence))
        # A piece's chunks refer to the nodes of the edges that cite it.
        refs: dict[str, set[str]] = {}
        for index, edge in edges.items():
            if index not in rejected_edges(rejected):
                for ref in edge.evidence:
                    refs.setdefault(ref, set()).update((edge.from_key, edge.to_key))
        records = [
            _record(piece, chunk_id, ordinal, text, vector, request, digest,
                    tuple(sorted(refs.get(piece.ref, ()))))
            for (piece, chunk_id, ordinal, text), vector in zip(texts, vectors, strict=True)
        ]  # fmt: skip
        await unit.write_chunks(records)
        await unit.upsert_nodes(request.scope, list(nodes.values()))
        await unit.upsert_edges(request.scope, kept)
        mentions = set(nodes) | {k for e in kept for k in (e.from_key, e.to_key)}
        await unit.record_source(
            SourceRecord(request.scope, request.source_urn, request.kind, digest, None,
                         request.connection_id, tuple(r.id for r in records), tuple(mentions))
        )  # fmt: skip
        orphaned = await unit.delete_orphans(request.scope, set(previous) - mentions)
        return removed + PurgeCounts(vertices_deleted=orphaned), kept

    result = await deps.store.write(store)
    if result is None:
        return GraphOutcome(_outcome(IngestStatus.SKIPPED_DUPLICATE, digest), tuple(rejected))
    replaced, kept = result
    logger.info(
        "ingestion.indexed",
        extra={"source_urn": request.source_urn, "scope": request.scope.describe(),
               "chunks": len(texts), "nodes": len(nodes), "edges": len(kept),
               "rejected": len(rejected),
               "duration_ms": round((time.perf_counter() - started) * 1000, 2)},
    )  # fmt: skip
    outcome = IngestOutcome(
        status=IngestStatus.INDEXED,
        content_hash=digest,
        chunk_ids=tuple(t[1] for t in texts),
        nodes=tuple(sorted(nodes)),
        edges=tuple(Relationship(e.from_key, e.edge_type, e.to_key) for e in kept),
        replaced=replaced,
    )
    return GraphOutcome(outcome, tuple(sorted(rejected, key=lambda r: (r.item, r.index))))


def _valid_pieces(
    request: GraphRequest, deps: IngestDeps, rejected: list[Rejection]
) -> dict[str, GraphPiece]:
    pieces: dict[str, GraphPiece] = {}
    for index, piece in enumerate(request.pieces):
        if not piece.ref.strip() or piece.ref in pieces:
            rejected.append(Rejection("PIECE", index, "ref must be non-empty and unique"))
        elif not piece.content.strip():
            rejected.append(Rejection("PIECE", index, "content is empty"))
        else:
            # Secrets reject the whole request (nothing stored), as for `ingest`.
            content = clean_content(piece.content, deps.secret_policy)
            pieces[piece.ref] = GraphPiece(
                piece.ref, content, piece.knowledge_type, piece.info_type, piece.tags
            )
    return pieces


def _valid_nodes(
    request: GraphRequest, deps: IngestDeps, rejected: list[Rejection]
) -> dict[str, NodeRecord]:
    nodes: dict[str, NodeRecord] = {}
    for index, node in enumerate(request.nodes):
        try:
            key = _canonical(node.key, "key")
            properties = clean_metadata(node.properties, deps.secret_policy)
        except ValidationError as error:
            rejected.append(Rejection("NODE", index, error.message))
            continue
        reserved = {"key", "type", "client", "project", "group"} & set(properties)
        if reserved:
            rejected.append(Rejection("NODE", index, f"reserved property {sorted(reserved)[0]}"))
            continue
        node_type = normalize_key(f"{node.type}:x").split(":")[0] if node.type else None
        nodes[key] = NodeRecord(key, node_type or key.split(":", 1)[0], properties)
    return nodes


def _parsed_edges(
    request: GraphRequest, pieces: Mapping[str, GraphPiece], rejected: list[Rejection]
) -> dict[int, GraphEdge]:
    check_relationship_strings(
        tuple(f"{e.from_key}|{e.edge_type}|{e.to_key}" for e in request.edges)
    )
    edges: dict[int, GraphEdge] = {}
    seen: set[tuple[str, str, str]] = set()
    for index, edge in enumerate(request.edges):
        try:
            parsed = GraphEdge(
                _canonical(edge.from_key, "from"),
                normalize_edge_type(edge.edge_type),
                _canonical(edge.to_key, "to"),
                tuple(dict.fromkeys(edge.evidence)),
            )
        except KenningError as error:
            rejected.append(Rejection("EDGE", index, error.message))
            continue
        unknown = [ref for ref in parsed.evidence if ref not in pieces]
        if not parsed.evidence or unknown:
            reason = f"unknown evidence piece {unknown[0]}" if unknown else "no evidence"
            rejected.append(Rejection("EDGE", index, reason))
        elif parsed.from_key == parsed.to_key:
            rejected.append(Rejection("EDGE", index, "an edge needs two distinct endpoints"))
        elif (parsed.from_key, parsed.edge_type, parsed.to_key) in seen:
            rejected.append(Rejection("EDGE", index, "duplicate of an earlier edge"))
        else:
            seen.add((parsed.from_key, parsed.edge_type, parsed.to_key))
            edges[index] = parsed
    return edges


def _digest(
    request: GraphRequest,
    pieces: Mapping[str, GraphPiece],
    nodes: Mapping[str, NodeRecord],
    edges: Mapping[int, GraphEdge],
) -> str:
    document = {
        "pieces": [[p.ref, p.content, p.knowledge_type or "", p.info_type or "", sorted(p.tags)]
                   for p in pieces.values()],
        "nodes": sorted([k, n.type, n.properties] for k, n in nodes.items()),
        "edges": sorted([e.from_key, e.edge_type, e.to_key, sorted(e.evidence)]
                        for e in edges.values()),
    }  # fmt: skip
    return content_hash(
        IndexedPayload(
            source_urn=request.source_urn,
            content=json.dumps(document, sort_keys=True, default=str),
            kind=request.kind,
            scope=request.scope,
            connection_id=request.connection_id or "",
            source_kind=request.source_kind or "",
        )
    )


def _record(
    piece: GraphPiece,
    chunk_id: str,
    ordinal: int,
    text: str,
    vector: Sequence[float],
    request: GraphRequest,
    digest: str,
    graph_refs: tuple[str, ...],
) -> ChunkRecord:
    return ChunkRecord(
        id=chunk_id,
        source_urn=request.source_urn,
        ordinal=ordinal,
        kind=request.kind,
        scope=request.scope,
        content=text,
        embedding=tuple(vector),
        graph_refs=graph_refs,
        content_hash=digest,
        knowledge_type=piece.knowledge_type.value if piece.knowledge_type else None,
        info_type=piece.info_type,
        tags=piece.tags,
        source_kind=request.source_kind,
        connection_id=request.connection_id,
        metadata={"pieceRef": piece.ref},
    )


def rejected_edges(rejected: Sequence[Rejection]) -> set[int]:
    """Indexes of the request's edges that were rejected."""
    return {r.index for r in rejected if r.item == "EDGE"}


def _outcome(status: IngestStatus, digest: str) -> IngestOutcome:
    return IngestOutcome(status=status, content_hash=digest, chunk_ids=(), nodes=(), edges=())
