"""``load_knowledge``: a knowledge file (entity metadata, pieces, graph) loaded through
``ingest_graph``, so a file and a structured ingest are one implementation.

The file is one JSON object::

    {
      "metadata": {"user:john": {"type": "user", "properties": {"team": "auth"}}},
      "pieces": [{"id": "p1", "content": "John owns the auth service.",
                  "knowledgeType": "FACT", "infoType": "context", "tags": ["team"],
                  "embeddingText": "who owns the auth service"}],
      "graph": {
        "nodes": [{"id": "service:auth", "type": "service", "properties": {"tier": 1}}],
        "edges": [{"source": "user:john", "relation": "OWNS", "target": "service:auth",
                   "evidence": ["p1"]}]
      },
      "relations": [{"edgeType": "OWNS", "cardinality": "ONE", "description": "its owner"}]
    }

Every section is optional. A malformed item is rejected on its own (``PIECE``, ``NODE``,
``EDGE`` or ``METADATA`` with its index in the file) and the rest is loaded; a file that is
not such an object, or is too large, is refused whole, and so is one with a bad relation
declaration or declared by a key that may not (``knowledge_relations``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Final, TypeVar

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.graph_items import MAX_ITEMS, GraphPiece, GraphRequest, Rejection
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ingest_graph import GraphOutcome, ingest_graph
from kenning.domain.ingestion.knowledge_relations import SECTION, read_relations
from kenning.domain.ingestion.relations import Declaration, Declarations, may_declare
from kenning.domain.ingestion.request import EdgeRecord, KnowledgeType, NodeRecord
from kenning.domain.ingestion.rules import check_identifiers, clean_content

MAX_FILE_CHARS: Final = 4_000_000
KIND: Final = "knowledge_file"
_SECTIONS: Final = frozenset({"metadata", "pieces", "graph", "relations"})
_PIECE_FIELDS: Final = frozenset(
    {"id", "content", "knowledgeType", "infoType", "tags", "embeddingText"}
)
_NODE_FIELDS: Final = frozenset({"id", "type", "properties"})
_EDGE_FIELDS: Final = frozenset({"source", "relation", "target", "evidence"})
T = TypeVar("T")


class _Malformed(Exception):
    """One item of the file cannot be read; the reason names the field."""


@dataclass(slots=True)
class KnowledgeFile:
    """The file as a graph request, its relation declarations, what was malformed, and
    each request item's file index."""

    request: GraphRequest
    relations: tuple[Declaration, ...] = ()
    rejected: list[Rejection] = field(default_factory=list)
    pieces_at: list[int] = field(default_factory=list)
    nodes_at: list[int] = field(default_factory=list)
    edges_at: list[int] = field(default_factory=list)

    def in_file(self, rejection: Rejection) -> Rejection:
        """``rejection`` (indexed in the request) indexed as in the file."""
        where = {"PIECE": self.pieces_at, "NODE": self.nodes_at, "EDGE": self.edges_at}
        indexes = where.get(rejection.item)
        return replace(rejection, index=indexes[rejection.index]) if indexes else rejection


def read_file(document: object, source_urn: str, scope: Scope, priority: int = 3) -> KnowledgeFile:
    """The file's items as a ``GraphRequest``; malformed items are rejected one by one."""
    sections = _sections(document)
    graph = sections.get("graph", {})
    if not isinstance(graph, Mapping) or set(graph) - {"nodes", "edges"}:
        raise ValidationError("graph must be an object with nodes and edges", field="json.graph")
    metadata = sections.get("metadata", {})
    if not isinstance(metadata, Mapping):
        raise ValidationError("metadata must be an object", field="json.metadata")
    loaded = KnowledgeFile(GraphRequest(source_urn, scope, kind=KIND, priority=priority))
    loaded.relations = read_relations(sections.get("relations"))
    pieces = _each(_listed(sections, "pieces"), "PIECE", _piece, loaded.pieces_at, loaded)
    nodes = _each(_listed(graph, "nodes"), "NODE", _node, loaded.nodes_at, loaded)
    edges = _each(_listed(graph, "edges"), "EDGE", _edge, loaded.edges_at, loaded)
    total = len(pieces) + len(nodes) + len(edges) + len(metadata)
    if total > MAX_ITEMS:
        raise TooLargeError(f"at most {MAX_ITEMS} items per file", field="json")
    loaded.request = replace(
        loaded.request, pieces=tuple(pieces), nodes=tuple(nodes), edges=tuple(edges),
        metadata=dict(metadata),
    )  # fmt: skip
    return loaded


async def load_knowledge(
    document: object,
    source_urn: str,
    scope: Scope,
    deps: IngestDeps,
    priority: int = 3,
    observed_at: datetime | None = None,
    caller: Principal | None = None,
) -> GraphOutcome:
    """Load a knowledge file as one source: what is valid is stored, the rest rejected.
    ``observed_at`` holds for every piece: the format's items have closed field sets, so a
    file cannot say it itself. Its relation declarations are ``caller``'s (``ScopeError``
    unless that key may declare them, as for ``defineRelation``; without a caller a file
    cannot declare any), stored with the load, before its edges."""
    loaded = read_file(document, source_urn, scope, priority)
    loaded.request = replace(loaded.request, observed_at=observed_at)
    if _empty(loaded.request):
        raise ValidationError("the file has no valid item to load", field="json")
    declared = _declarations(loaded.relations, caller, scope, deps) if loaded.relations else None
    result = await ingest_graph(loaded.request, deps, declared)
    rejected = loaded.rejected + [loaded.in_file(r) for r in result.rejected]
    return GraphOutcome(result.outcome, tuple(sorted(rejected, key=lambda r: (r.item, r.index))))


def _declarations(
    relations: tuple[Declaration, ...], caller: Principal | None, scope: Scope, deps: IngestDeps
) -> Declarations:
    """The file's declarations as ``caller``'s, once it may declare them and they pass the
    secret policy (edge types as identifiers, descriptions as text)."""
    if caller is None:
        raise ScopeError("this load cannot declare relations", field=SECTION)
    may_declare(caller, scope.client_id)
    check_identifiers([(f"relations[{i}].edgeType", r.edge_type) for i, r in enumerate(relations)])
    cleaned = []
    for index, relation in enumerate(relations):
        where = f"relations[{index}].description"
        text = clean_content(relation.description, deps.secret_policy, where)
        cleaned.append(replace(relation, description=text))
    return Declarations(tuple(cleaned), caller.key_id, SECTION)


def _empty(request: GraphRequest) -> bool:
    return not (request.pieces or request.nodes or request.edges or request.metadata)


def _sections(document: object) -> Mapping[str, object]:
    if not isinstance(document, Mapping):
        raise ValidationError("a knowledge file is a JSON object", field="json")
    if len(json.dumps(document)) > MAX_FILE_CHARS:
        raise TooLargeError(
            f"a knowledge file is at most {MAX_FILE_CHARS} characters", field="json"
        )
    unknown = sorted(set(document) - _SECTIONS)
    if unknown:
        raise ValidationError(f"unknown section {unknown[0]!r}", field=f"json.{unknown[0]}")
    return document


def _listed(section: Mapping[str, object], name: str) -> list[object]:
    items = section.get(name, [])
    if not isinstance(items, list):
        raise ValidationError(f"{name} must be a list", field=f"json.{name}")
    return items


def _each(
    items: list[object],
    kind: str,
    parse: Callable[[object], T],
    positions: list[int],
    loaded: KnowledgeFile,
) -> list[T]:
    parsed: list[T] = []
    for index, item in enumerate(items):
        try:
            parsed.append(parse(item))
        except _Malformed as error:
            loaded.rejected.append(Rejection(kind, index, str(error)))
            continue
        positions.append(index)
    return parsed


def _object(item: object, allowed: frozenset[str]) -> Mapping[str, object]:
    if not isinstance(item, Mapping):
        raise _Malformed("must be a JSON object")
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise _Malformed(f"unknown field {unknown[0]!r}")
    return item


def _text(item: Mapping[str, object], name: str, *, required: bool = True) -> str | None:
    value = item.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _Malformed(f"{name} must be a non-empty string")
    return value


def _piece(item: object) -> GraphPiece:
    piece = _object(item, _PIECE_FIELDS)
    tags = piece.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise _Malformed("tags must be a list of strings")
    knowledge = _text(piece, "knowledgeType", required=False)
    try:
        knowledge_type = KnowledgeType(knowledge.upper()) if knowledge else None
    except ValueError:
        raise _Malformed(f"knowledgeType must be one of {', '.join(KnowledgeType)}") from None
    return GraphPiece(
        ref=_text(piece, "id") or "",
        content=_text(piece, "content") or "",
        knowledge_type=knowledge_type,
        info_type=_text(piece, "infoType", required=False),
        tags=tuple(tags),
        embedding_text=_text(piece, "embeddingText", required=False),
    )


def _node(item: object) -> NodeRecord:
    node = _object(item, _NODE_FIELDS)
    properties = node.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise _Malformed("properties must be a JSON object")
    return NodeRecord(
        _text(node, "id") or "", _text(node, "type", required=False) or "", properties
    )


def _edge(item: object) -> EdgeRecord:
    edge = _object(item, _EDGE_FIELDS)
    evidence = edge.get("evidence")
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise _Malformed("evidence must be a list of piece ids")
    return EdgeRecord(
        _text(edge, "source") or "",
        _text(edge, "relation") or "",
        _text(edge, "target") or "",
        tuple(evidence),
    )
