"""What ``ingest_graph`` takes, and the checks its items pass before anything is stored.

Credentials refuse the whole request (nothing is stored), as for ``ingest``: in an
identifier (URN, ref, key, type, tag) whatever the policy, in a piece's content or embedding
text or a node's properties as the policy says. Other bad items are rejected one by one with a
reason. An edge citing no piece is its source's assertion (``edge_sources``); the
``metadata`` section's entries become nodes (``graph_metadata``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError, TooLargeError, ValidationError
from kenning.domain.ingestion.edge_sources import given_properties
from kenning.domain.ingestion.extraction_warnings import (
    ExtractionWarning,
    WarningSource,
    key_warning,
)
from kenning.domain.ingestion.graph_digest import graph_digest
from kenning.domain.ingestion.graph_metadata import metadata_entry
from kenning.domain.ingestion.node_keys import (
    canonicalize_key,
    normalize_edge_type,
    normalize_key,
    parse_key,
)
from kenning.domain.ingestion.node_properties import RESERVED
from kenning.domain.ingestion.request import EdgeRecord, KnowledgeType, NodeRecord
from kenning.domain.ingestion.rules import check_identifiers, clean_content, clean_metadata
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.validity import checked_observed_at

MAX_ITEMS = 5_000


@dataclass(frozen=True, slots=True)
class GraphPiece:
    """A piece of text the request's edges may cite as evidence by ``ref``."""

    ref: str
    content: str
    knowledge_type: KnowledgeType | None = None
    info_type: str | None = None
    tags: tuple[str, ...] = ()
    # Embedded instead of the content when given (the content is still what is stored).
    embedding_text: str | None = None
    # Kept on each of the piece's chunks (e.g. where in a file: page, section path, lines).
    metadata: Mapping[str, object] = field(default_factory=dict)
    # The entity the piece is about (a knowledge file's ``entity_id``): its chunks refer to
    # it, so the node lists them and they name it, whether or not an edge cites the piece.
    entity_key: str | None = None


@dataclass(frozen=True, slots=True)
class GraphRequest:
    """One structured ingest."""

    source_urn: str
    scope: Scope
    kind: str = "graph"
    pieces: tuple[GraphPiece, ...] = ()
    nodes: tuple[NodeRecord, ...] = ()
    edges: tuple[EdgeRecord, ...] = ()  # evidence: the refs of the pieces that support them
    # Entity id -> {"type": str, "properties": object}, as given: checked per entry.
    metadata: Mapping[str, object] = field(default_factory=dict)
    connection_id: str | None = None
    source_kind: str | None = None
    priority: int = 3
    # When the source says its pieces were true: the writer's (checked) or the source's own.
    observed_at: datetime | None = None
    writer: str | None = None  # the key that wrote it, named on the edges it asserts


@dataclass(frozen=True, slots=True)
class Rejection:
    """An item that was not stored, and why."""

    item: str  # PIECE | NODE | EDGE | METADATA
    index: int
    reason: str


@dataclass(slots=True)
class Items:
    """The request's items that may be stored, what was rejected, warnings, and the hash."""

    pieces: dict[str, GraphPiece]
    nodes: dict[str, NodeRecord]
    edges: dict[int, EdgeRecord]
    rejected: list[Rejection]
    warnings: list[ExtractionWarning]
    digest: str = ""
    observed_at: datetime | None = None  # in UTC, checked


def request_size(request: GraphRequest) -> int:
    """About how many characters the checks of ``request`` read."""
    return sum(len(p.content) + len(p.embedding_text or "") for p in request.pieces) + 200 * (
        len(request.nodes) + len(request.edges) + len(request.metadata)
    )


def check_items(request: GraphRequest, policy: SecretPolicy) -> Items:
    """Validate and clean every item; ``SensitiveContentError`` refuses the whole request."""
    _check(request)
    check_identifiers(identifier_fields(request))
    when = checked_observed_at(request.observed_at, datetime.now(UTC), "observedAt")
    items = Items({}, {}, {}, [], [], observed_at=when)
    _valid_pieces(request, policy, items)
    _valid_nodes(request, policy, items)
    _valid_metadata(request, policy, items)
    _parsed_edges(request, policy, items)
    items.digest = graph_digest(request, items)
    return items


def identifier_fields(request: GraphRequest) -> list[tuple[str, str]]:
    """Every field of ``request`` that names or labels, by its input name."""
    scope = request.scope
    fields = [
        ("sourceUrn", request.source_urn),
        ("kind", request.kind),
        ("connectionId", request.connection_id or ""),
        ("sourceKind", request.source_kind or ""),
        ("scope.clientId", scope.client_id),
        ("scope.projectId", scope.project_id),
        ("scope.groupId", scope.group_id),
    ]
    for i, piece in enumerate(request.pieces):
        fields += [
            (f"pieces[{i}].ref", piece.ref),
            (f"pieces[{i}].infoType", piece.info_type or ""),
            (f"pieces[{i}].entityKey", piece.entity_key or ""),
        ]
        fields += [(f"pieces[{i}].tags[{j}]", tag) for j, tag in enumerate(piece.tags)]
    for i, node in enumerate(request.nodes):
        fields += [(f"nodes[{i}].key", node.key), (f"nodes[{i}].type", node.type or "")]
    for i, (entity_id, entry) in enumerate(request.metadata.items()):
        entity_type = entry.get("type") if isinstance(entry, Mapping) else None
        named = entity_type if isinstance(entity_type, str) else ""
        fields += [(f"metadata[{i}]", entity_id), (f"metadata[{i}].type", named)]
    for i, edge in enumerate(request.edges):
        fields += [
            (f"edges[{i}].from", edge.from_key),
            (f"edges[{i}].edgeType", edge.edge_type),
            (f"edges[{i}].to", edge.to_key),
        ]
        fields += [
            (f"edges[{i}].evidence[{j}]", ref) for j, ref in enumerate(edge.evidence_chunk_ids)
        ]
    return [(name, value) for name, value in fields if value]


def rejected_edges(rejected: list[Rejection]) -> set[int]:
    """Indexes of the request's edges that were rejected."""
    return {r.index for r in rejected if r.item == "EDGE"}


def _check(request: GraphRequest) -> None:
    if not request.source_urn.strip():
        raise ValidationError("sourceUrn is required", field="sourceUrn")
    total = len(request.pieces) + len(request.nodes) + len(request.edges) + len(request.metadata)
    if total == 0:
        raise ValidationError(
            "nothing to ingest: give pieces, nodes, edges or metadata", field="input"
        )
    if total > MAX_ITEMS:
        raise TooLargeError(f"at most {MAX_ITEMS} items per request", field="input")
    if not 0 <= request.priority <= 9:
        raise ValidationError("priority must be 0..9", field="priority")


def _canonical(raw: str, field: str, items: Items, source: WarningSource, line: int) -> str:
    parse_key(raw, field=field)
    key = canonicalize_key(normalize_key(raw))
    warning = key_warning(source, line, raw.strip(), key)
    if warning is not None and all(w.key != warning.key for w in items.warnings):
        items.warnings.append(warning)
    return key


def _valid_pieces(request: GraphRequest, policy: SecretPolicy, items: Items) -> None:
    for index, piece in enumerate(request.pieces):
        if not piece.ref.strip() or piece.ref in items.pieces:
            items.rejected.append(Rejection("PIECE", index, "ref must be non-empty and unique"))
        elif not piece.content.strip():
            items.rejected.append(Rejection("PIECE", index, "content is empty"))
        else:
            try:
                entity = _entity(piece, request.metadata, items, index)
            except ValidationError as error:
                items.rejected.append(Rejection("PIECE", index, error.message))
                continue
            content = clean_content(piece.content, policy, f"pieces[{index}].content")
            embedding_text = (
                clean_content(piece.embedding_text, policy, f"pieces[{index}].embeddingText")
                if piece.embedding_text and piece.embedding_text.strip()
                else None
            )
            metadata = clean_metadata(piece.metadata, policy, f"pieces[{index}].metadata")
            items.pieces[piece.ref] = replace(
                piece,
                content=content,
                embedding_text=embedding_text,
                metadata=metadata,
                entity_key=entity,
            )


def _entity(
    piece: GraphPiece, metadata: Mapping[str, object], items: Items, index: int
) -> str | None:
    """The canonical key of the piece's entity (``type:id``, or a metadata entry's id)."""
    raw = piece.entity_key
    if raw is None:
        return None
    entry = metadata.get(raw)
    entity_type = entry.get("type") if isinstance(entry, Mapping) else None
    if ":" not in raw and isinstance(entity_type, str) and entity_type.strip():
        raw = f"{entity_type}:{raw}"
    try:
        return _canonical(raw, "entityKey", items, "nodes", index + 1)
    except ValidationError as error:
        raise ValidationError(f"entity {raw}: {error.message}") from None


def _valid_nodes(request: GraphRequest, policy: SecretPolicy, items: Items) -> None:
    for index, node in enumerate(request.nodes):
        try:
            key = _canonical(node.key, "key", items, "nodes", index + 1)
            properties = clean_metadata(node.properties, policy, f"nodes[{index}].properties")
        except ValidationError as error:
            items.rejected.append(Rejection("NODE", index, error.message))
            continue
        reserved = RESERVED & set(properties)
        if reserved:
            items.rejected.append(
                Rejection("NODE", index, f"reserved property {sorted(reserved)[0]}")
            )
            continue
        node_type = normalize_key(f"{node.type}:x").split(":")[0] if node.type else None
        items.nodes[key] = NodeRecord(key, node_type or key.split(":", 1)[0], properties)


def _valid_metadata(request: GraphRequest, policy: SecretPolicy, items: Items) -> None:
    for index, (entity_id, entry) in enumerate(request.metadata.items()):
        where = f"metadata[{index}]"
        try:
            entity_type, properties = metadata_entry(entry, where, policy)
            raw = entity_id if ":" in entity_id or not entity_type else f"{entity_type}:{entity_id}"
            key = _canonical(raw, where, items, "nodes", index + 1)
        except ValidationError as error:
            items.rejected.append(Rejection("METADATA", index, f"{entity_id}: {error.message}"))
            continue
        node_type = normalize_key(f"{entity_type}:x").split(":")[0] if entity_type else None
        given = items.nodes.get(key)
        merged = {**(given.properties if given else {}), **properties}
        chosen = node_type or (given.type if given else key.split(":", 1)[0])
        items.nodes[key] = NodeRecord(key, chosen, merged)


def _parsed_edges(request: GraphRequest, policy: SecretPolicy, items: Items) -> None:
    """The request's edges, keyed and checked; one with no evidence is its source's
    assertion (``edge_sources``)."""
    seen: set[tuple[str, str, str]] = set()
    for index, edge in enumerate(request.edges):
        try:
            parsed = _parsed_edge(edge, index, policy, items)
        except SensitiveContentError:
            raise
        except KenningError as error:
            items.rejected.append(Rejection("EDGE", index, error.message))
            continue
        unknown = [ref for ref in parsed.evidence_chunk_ids if ref not in items.pieces]
        if unknown:
            items.rejected.append(Rejection("EDGE", index, f"unknown evidence piece {unknown[0]}"))
        elif parsed.from_key == parsed.to_key:
            items.rejected.append(Rejection("EDGE", index, "an edge needs two distinct endpoints"))
        elif (parsed.from_key, parsed.edge_type, parsed.to_key) in seen:
            items.rejected.append(Rejection("EDGE", index, "duplicate of an earlier edge"))
        else:
            seen.add((parsed.from_key, parsed.edge_type, parsed.to_key))
            items.edges[index] = parsed


def _parsed_edge(edge: EdgeRecord, index: int, policy: SecretPolicy, items: Items) -> EdgeRecord:
    link, properties = given_properties(edge.properties, policy, f"edges[{index}].properties")
    return EdgeRecord(
        _canonical(edge.from_key, "from", items, "edges", index + 1),
        normalize_edge_type(edge.edge_type),
        _canonical(edge.to_key, "to", items, "edges", index + 1),
        tuple(dict.fromkeys([*edge.evidence_chunk_ids, *([link] if link else [])])),
        properties,
    )
