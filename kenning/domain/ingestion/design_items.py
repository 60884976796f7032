"""Reading one item of a knowledge file in the design's format (003 §Path B, snake_case)::

    piece    {"piece_id", "content", "knowledge_type", "info_type", "tags", "entity_id",
              "embedding_text"}
    node     {"node_id", "node_type", "label", "properties"}
    edge     {"source_id", "target_id", "edge_type", "properties"}
    metadata entity id -> {"entity_type", "properties"}

``knowledge_type`` is a word in any case (``procedure``); a node's ``label`` is kept as its
``label`` property; an edge's ``properties.piece_id`` names the piece that states it (its
evidence, not a property: ``edge_sources``). A piece's ``entity_id`` names the entity it is
about.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from kenning.domain.ingestion.graph_items import GraphPiece
from kenning.domain.ingestion.knowledge_items import (
    KENNING_ONLY,
    Malformed,
    fields_of,
    knowledge_type,
    properties,
    tags,
    text,
)
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord

PIECE_FIELDS: Final = frozenset(
    {"piece_id", "content", "knowledge_type", "info_type", "tags", "entity_id", "embedding_text"}
)
NODE_FIELDS: Final = frozenset({"node_id", "node_type", "label", "properties"})
EDGE_FIELDS: Final = frozenset({"source_id", "target_id", "edge_type", "properties"})
METADATA_FIELDS: Final = frozenset({"entity_type", "properties"})
_NAMED = "the design's"


def piece(item: object) -> GraphPiece:
    """A piece of the design's format."""
    given = fields_of(item, PIECE_FIELDS, KENNING_ONLY, _NAMED)
    return GraphPiece(
        ref=text(given, "piece_id") or "",
        content=text(given, "content") or "",
        knowledge_type=knowledge_type(given, "knowledge_type"),
        info_type=text(given, "info_type", required=False),
        tags=tags(given),
        embedding_text=text(given, "embedding_text", required=False),
        entity_key=text(given, "entity_id", required=False),
    )


def node(item: object) -> NodeRecord:
    """A node of the design's format; its ``label`` becomes its ``label`` property."""
    given = fields_of(item, NODE_FIELDS, KENNING_ONLY, _NAMED)
    found = dict(properties(given))
    label = text(given, "label", required=False)
    if label is not None:
        if found.get("label", label) != label:
            raise Malformed("label differs from properties.label")
        found["label"] = label
    return NodeRecord(
        text(given, "node_id") or "", text(given, "node_type", required=False) or "", found
    )


def edge(item: object) -> EdgeRecord:
    """An edge of the design's format; ``ingest_graph`` takes ``properties.piece_id`` as
    its evidence (none: its source's assertion)."""
    given = fields_of(item, EDGE_FIELDS, KENNING_ONLY, _NAMED)
    return EdgeRecord(
        text(given, "source_id") or "",
        text(given, "edge_type") or "",
        text(given, "target_id") or "",
        (),
        properties(given),
    )


def metadata_entry(item: object) -> Mapping[str, object]:
    """A metadata entry as ``ingest_graph`` reads one (``type`` and ``properties``)."""
    given = fields_of(item, METADATA_FIELDS, KENNING_ONLY, _NAMED)
    return {"type": text(given, "entity_type"), "properties": properties(given)}
