"""``load_knowledge``: a knowledge file (entity metadata, pieces, graph) loaded through
``ingest_graph``, so a file and a structured ingest are one implementation.

A file is one JSON object in one of two formats, recognised per file: Kenning's own
(camelCase, ``knowledge_items``) and the design's (003 §Path B, snake_case,
``design_items``)::

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

    {
      "metadata": {"user:alice": {"entity_type": "user", "properties": {"team": "aero"}}},
      "pieces": [{"piece_id": "les", "content": "Initialize LES from converged RANS.",
                  "knowledge_type": "procedure", "info_type": "instructions",
                  "entity_id": "user:alice"}],
      "graph": {
        "nodes": [{"node_id": "technique:les", "node_type": "technique", "label": "LES"}],
        "edges": [{"source_id": "user:alice", "target_id": "technique:les",
                   "edge_type": "SPECIALIZES_IN", "properties": {"piece_id": "les"}}]
      }
    }

The first item whose fields belong to one format only decides the file's (Kenning's when
none does); an item with a field of the other format is rejected, the field named. Every
section is optional. A malformed item is rejected on its own (``PIECE``, ``NODE``, ``EDGE``
or ``METADATA`` with its index in the file) and the rest is loaded; a file that is not such
an object, or is too large, is refused whole, and so is one with a bad relation declaration
or declared by a key that may not (``knowledge_relations``).
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
from kenning.domain.ingestion import design_items, knowledge_items
from kenning.domain.ingestion.graph_items import MAX_ITEMS, GraphPiece, GraphRequest, Rejection
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ingest_graph import GraphOutcome, ingest_graph
from kenning.domain.ingestion.knowledge_items import DESIGN_ONLY, KENNING_ONLY, Malformed
from kenning.domain.ingestion.knowledge_relations import SECTION, read_relations
from kenning.domain.ingestion.relations import Declaration, Declarations, may_declare
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.rules import check_identifiers, clean_content

MAX_FILE_CHARS: Final = 4_000_000
KIND: Final = "knowledge_file"
_SECTIONS: Final = frozenset({"metadata", "pieces", "graph", "relations"})
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class FileFormat:
    """How one format's items read."""

    name: str
    piece: Callable[[object], GraphPiece]
    node: Callable[[object], NodeRecord]
    edge: Callable[[object], EdgeRecord]
    metadata: Callable[[object], object]


KENNING: Final = FileFormat(
    "kenning",
    knowledge_items.piece,
    knowledge_items.node,
    knowledge_items.edge,
    knowledge_items.metadata_entry,
)
DESIGN: Final = FileFormat(
    "design",
    design_items.piece,
    design_items.node,
    design_items.edge,
    design_items.metadata_entry,
)


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
    metadata_at: list[int] = field(default_factory=list)
    format: FileFormat = KENNING

    def in_file(self, rejection: Rejection) -> Rejection:
        """``rejection`` (indexed in the request) indexed as in the file."""
        where = {
            "PIECE": self.pieces_at,
            "NODE": self.nodes_at,
            "EDGE": self.edges_at,
            "METADATA": self.metadata_at,
        }
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
    raw = (_listed(sections, "pieces"), _listed(graph, "nodes"), _listed(graph, "edges"))
    loaded = KnowledgeFile(GraphRequest(source_urn, scope, kind=KIND, priority=priority))
    loaded.format = file_format([*metadata.values(), *raw[0], *raw[1], *raw[2]])
    loaded.relations = read_relations(sections.get("relations"))
    kind = loaded.format
    pieces = _each(raw[0], "PIECE", kind.piece, loaded.pieces_at, loaded)
    nodes = _each(raw[1], "NODE", kind.node, loaded.nodes_at, loaded)
    edges = _each(raw[2], "EDGE", kind.edge, loaded.edges_at, loaded)
    entries = _metadata(metadata, loaded)
    total = len(pieces) + len(nodes) + len(edges) + len(metadata)
    if total > MAX_ITEMS:
        raise TooLargeError(f"at most {MAX_ITEMS} items per file", field="json")
    loaded.request = replace(
        loaded.request,
        pieces=tuple(pieces),
        nodes=tuple(nodes),
        edges=tuple(edges),
        metadata=entries,
    )
    return loaded


def file_format(items: list[object]) -> FileFormat:
    """The format of the first item whose fields belong to one format only; Kenning's when
    no item tells."""
    for item in items:
        if not isinstance(item, Mapping):
            continue
        names = set(item)
        design, kenning = bool(names & DESIGN_ONLY), bool(names & KENNING_ONLY)
        if design != kenning:
            return DESIGN if design else KENNING
    return KENNING


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
    writer = caller.key_id if caller is not None else None
    loaded.request = replace(loaded.request, observed_at=observed_at, writer=writer)
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
        except Malformed as error:
            loaded.rejected.append(Rejection(kind, index, str(error)))
            continue
        positions.append(index)
    return parsed


def _metadata(metadata: Mapping[str, object], loaded: KnowledgeFile) -> dict[str, object]:
    """The entries the file's format reads, in file order (``metadata_at``); the others are
    rejected by their file index."""
    entries: dict[str, object] = {}
    for index, (entity_id, entry) in enumerate(metadata.items()):
        try:
            entries[entity_id] = loaded.format.metadata(entry)
        except Malformed as error:
            loaded.rejected.append(Rejection("METADATA", index, f"{entity_id}: {error}"))
            continue
        loaded.metadata_at.append(index)
    return entries
