"""Model answers of a source's chunks merged into the nodes and edges to store (pure).

Entities become node keys exactly as written references do: ``type:name`` normalized and
canonicalized (``node_keys.parse_key``), then the client's aliases applied. Entities that
land on one key merge (the first non-empty description wins). Relation types are normalized
like relationship blocks; a relation whose end is no entity of its chunk, or that becomes a
self-loop once keys are canonical, is dropped with a warning. Every edge carries the chunks
that state it as evidence, ``extractedBy: "llm:<model>"`` and the highest confidence seen.

A model's description is a node *default*: it fills ``description`` only where the vertex
has none, so a description a writer gave (``ingestGraph`` metadata) is never overwritten.

Example::

    keys = extracted_keys(found)                  # resolve these through AliasResolver
    graph = merge_extractions(found, aliases, model="qwen2.5:7b")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kenning.domain.errors import ValidationError
from kenning.domain.extraction.graph_extraction import ChunkExtraction, Entity, name_key
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.request import EdgeEnding, EdgeRecord, NodeRecord

# (chunk id, what the model found in it), in chunk order.
ChunkFinding = tuple[str, ChunkExtraction]


@dataclass(frozen=True, slots=True)
class ExtractedGraph:
    """Nodes and evidence-bearing edges to upsert, what was dropped on the way, and the
    edges the chunks contradict, to end (``contradictions``; none from the merge)."""

    nodes: tuple[NodeRecord, ...]
    edges: tuple[EdgeRecord, ...]
    warnings: tuple[str, ...]
    endings: tuple[EdgeEnding, ...] = ()


def extracted_by(model: str) -> str:
    """The provenance of an extracted edge. Example: ``extracted_by("m") == "llm:m"``."""
    return f"llm:{model}"


def entity_key(entity: Entity) -> str:
    """The canonical node key of an entity; ``ValidationError`` when it cannot be one."""
    return parse_key(f"{entity.type}:{entity.name}", field="entities").key


def extracted_keys(found: Sequence[ChunkFinding]) -> set[str]:
    """Every valid entity key of ``found`` (before aliases), to resolve in one call."""
    keys: set[str] = set()
    for _, extraction in found:
        for entity in extraction.entities:
            try:
                keys.add(entity_key(entity))
            except ValidationError:
                continue
    return keys


def entity_keys(extraction: ChunkExtraction, aliases: Mapping[str, str]) -> set[str]:
    """The canonical keys of one chunk's valid entities, aliases applied."""
    keys = extracted_keys([("", extraction)])
    return {aliases.get(key, key) for key in keys}


def merge_extractions(
    found: Sequence[ChunkFinding], aliases: Mapping[str, str], *, model: str
) -> ExtractedGraph:
    """The nodes and edges of every chunk's answer, aliases applied, duplicates merged."""
    descriptions: dict[str, str] = {}
    evidence: dict[tuple[str, str, str], list[str]] = {}
    confidence: dict[tuple[str, str, str], float] = {}
    warnings: list[str] = []
    for chunk_id, extraction in found:
        names = _chunk_entities(chunk_id, extraction, aliases, descriptions, warnings)
        for relation in extraction.relations:
            start, end = names.get(name_key(relation.source)), names.get(name_key(relation.target))
            shown = f"{relation.source} -[{relation.type}]-> {relation.target}"
            if start is None or end is None:
                warnings.append(f"chunk {chunk_id}: {shown} dropped: an end is no entity")
                continue
            if start == end:
                warnings.append(f"chunk {chunk_id}: {shown} dropped: a self-loop ({start})")
                continue
            triple = (start, relation.type, end)
            chunks = evidence.setdefault(triple, [])
            if chunk_id not in chunks:
                chunks.append(chunk_id)
            confidence[triple] = max(confidence.get(triple, 0.0), relation.confidence)
    provenance = extracted_by(model)
    nodes = tuple(
        NodeRecord(key, key.split(":", 1)[0], defaults={"description": text} if text else {})
        for key, text in sorted(descriptions.items())
    )
    edges = tuple(
        EdgeRecord(
            s,
            t,
            e,
            tuple(chunks),
            properties={"extractedBy": provenance, "confidence": confidence[(s, t, e)]},
        )
        for (s, t, e), chunks in sorted(evidence.items())
    )
    return ExtractedGraph(nodes, edges, tuple(warnings))


def _chunk_entities(
    chunk_id: str,
    extraction: ChunkExtraction,
    aliases: Mapping[str, str],
    descriptions: dict[str, str],
    warnings: list[str],
) -> dict[str, str]:
    """Name (as relations match it) → canonical key for one chunk; descriptions merged."""
    names: dict[str, str] = {}
    for entity in extraction.entities:
        try:
            key = entity_key(entity)
        except ValidationError as error:
            warnings.append(f"chunk {chunk_id}: entity {entity.name!r} dropped: {error.message}")
            continue
        key = aliases.get(key, key)
        names.setdefault(name_key(entity.name), key)
        description = " ".join(entity.description.split())
        if not descriptions.get(key):
            descriptions[key] = description
    return names
