"""Reading one item of a knowledge file in Kenning's own format (camelCase), and the checks
both formats share: an item is a JSON object whose fields belong to its file's format.

Kenning's items::

    piece    {"id", "content", "knowledgeType", "infoType", "tags", "embeddingText"}
    node     {"id", "type", "properties"}
    edge     {"source", "relation", "target", "evidence", "properties"}
    metadata entity id -> {"type", "properties"}

The design's items (003 §Path B) are read by ``design_items``. A field of the other format
rejects the item, named, so a file mixing them item by item loads only its own format's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from kenning.domain.ingestion.graph_items import GraphPiece
from kenning.domain.ingestion.request import EdgeRecord, KnowledgeType, NodeRecord

PIECE_FIELDS: Final = frozenset(
    {"id", "content", "knowledgeType", "infoType", "tags", "embeddingText"}
)
NODE_FIELDS: Final = frozenset({"id", "type", "properties"})
EDGE_FIELDS: Final = frozenset({"source", "relation", "target", "evidence", "properties"})
METADATA_FIELDS: Final = frozenset({"type", "properties"})
# Fields only Kenning's format has, and only the design's: they tell a file's format.
KENNING_ONLY: Final = (PIECE_FIELDS | NODE_FIELDS | EDGE_FIELDS | METADATA_FIELDS) - {
    "content",
    "tags",
    "properties",
}
DESIGN_ONLY: Final = frozenset(
    {
        "piece_id",
        "knowledge_type",
        "info_type",
        "entity_id",
        "embedding_text",
        "entity_type",
        "node_id",
        "node_type",
        "label",
        "source_id",
        "target_id",
        "edge_type",
    }
)


class Malformed(Exception):
    """One item of the file cannot be read; the reason names the field."""


def fields_of(
    item: object, allowed: frozenset[str], foreign: frozenset[str], named: str
) -> Mapping[str, object]:
    """``item`` as an object whose fields are all ``allowed``; a field of the other format
    (``foreign``) is named as such, ``named`` being this file's format."""
    if not isinstance(item, Mapping):
        raise Malformed("must be a JSON object")
    unknown = sorted(str(name) for name in set(item) - allowed)
    if not unknown:
        return item
    other = [name for name in unknown if name in foreign]
    if other:
        raise Malformed(
            f"field {other[0]!r} is of the other knowledge-file format; this file is in "
            f"{named} format"
        )
    raise Malformed(f"unknown field {unknown[0]!r}")


def text(item: Mapping[str, object], name: str, *, required: bool = True) -> str | None:
    """The non-empty string ``item[name]`` (None when absent and not ``required``)."""
    value = item.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise Malformed(f"{name} must be a non-empty string")
    return value


def tags(item: Mapping[str, object]) -> tuple[str, ...]:
    """The item's ``tags``: a list of strings, empty when absent."""
    found = item.get("tags", [])
    if not isinstance(found, list) or not all(isinstance(t, str) for t in found):
        raise Malformed("tags must be a list of strings")
    return tuple(found)


def knowledge_type(item: Mapping[str, object], name: str) -> KnowledgeType | None:
    """``item[name]`` as a knowledge type, in any case (``fact``, ``Fact``, ``FACT``)."""
    given = text(item, name, required=False)
    try:
        return KnowledgeType(given.upper()) if given else None
    except ValueError:
        words = ", ".join(t.lower() for t in KnowledgeType)
        raise Malformed(f"{name} must be one of {words}") from None


def properties(item: Mapping[str, object]) -> Mapping[str, object]:
    """The item's ``properties`` object, empty when absent."""
    found = item.get("properties") or {}
    if not isinstance(found, Mapping):
        raise Malformed("properties must be a JSON object")
    return found


_NAMED = "Kenning's"


def piece(item: object) -> GraphPiece:
    """A piece of Kenning's format."""
    given = fields_of(item, PIECE_FIELDS, DESIGN_ONLY, _NAMED)
    return GraphPiece(
        ref=text(given, "id") or "",
        content=text(given, "content") or "",
        knowledge_type=knowledge_type(given, "knowledgeType"),
        info_type=text(given, "infoType", required=False),
        tags=tags(given),
        embedding_text=text(given, "embeddingText", required=False),
    )


def node(item: object) -> NodeRecord:
    """A node of Kenning's format."""
    given = fields_of(item, NODE_FIELDS, DESIGN_ONLY, _NAMED)
    return NodeRecord(
        text(given, "id") or "", text(given, "type", required=False) or "", properties(given)
    )


def edge(item: object) -> EdgeRecord:
    """An edge of Kenning's format; with no ``evidence`` its source asserts it."""
    given = fields_of(item, EDGE_FIELDS, DESIGN_ONLY, _NAMED)
    evidence = given.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise Malformed("evidence must be a list of piece ids")
    return EdgeRecord(
        text(given, "source") or "",
        text(given, "relation") or "",
        text(given, "target") or "",
        tuple(evidence),
        properties(given),
    )


def metadata_entry(item: object) -> object:
    """A metadata entry of Kenning's format, as ``ingest_graph`` checks it; only a field of
    the design's format is refused here, so the rest reads as it always has."""
    if isinstance(item, Mapping):
        fields_of(item, frozenset(item) - DESIGN_ONLY, DESIGN_ONLY, _NAMED)
    return item
