"""What the write path takes and gives: requests, stored records, outcomes, counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.extraction_warnings import ExtractionWarning
from kenning.domain.ingestion.validity import EndReason


class KnowledgeType(StrEnum):
    """What kind of knowledge a piece is."""

    FACT = "FACT"
    INSTRUCTION = "INSTRUCTION"
    PREFERENCE = "PREFERENCE"
    PROCEDURE = "PROCEDURE"
    NOTE = "NOTE"
    EPISODIC = "EPISODIC"


class IngestStatus(StrEnum):
    """How an ingest ended."""

    INDEXED = "INDEXED"
    SKIPPED_DUPLICATE = "SKIPPED_DUPLICATE"


@dataclass(frozen=True, slots=True)
class IngestRequest:
    """One document an agent writes."""

    source_urn: str
    kind: str
    content: str
    scope: Scope
    main_node_key: str | None = None
    knowledge_type: KnowledgeType | None = None
    info_type: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, object] = field(default_factory=dict)
    source_kind: str | None = None
    connection_id: str | None = None
    external_id: str | None = None
    revision: str | None = None
    relationships: tuple[str, ...] = ()
    priority: int = 3
    # When the source says this was true (UTC); None: when it is stored.
    observed_at: datetime | None = None
    # Sources at the same scope this one replaces: their edges end, their chunks no longer
    # hold (``supersedes``).
    supersedes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A chunk as stored: text, vector, scope, provenance and the graph keys it mentions."""

    id: str
    source_urn: str
    ordinal: int
    kind: str
    scope: Scope
    content: str
    embedding: tuple[float, ...]
    graph_refs: tuple[str, ...]
    content_hash: str
    knowledge_type: str | None = None
    info_type: str | None = None
    tags: tuple[str, ...] = ()
    source_kind: str | None = None
    connection_id: str | None = None
    external_id: str | None = None
    revision: str | None = None
    metadata: Mapping[str, object] = field(default_factory=dict)
    # When the source says this was true; None: when it is stored.
    observed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class NodeRecord:
    """A vertex to upsert; ``properties`` merge into what is stored. In a structured request
    an empty ``type`` means the key's own type (``service:billing`` -> ``service``); the
    checks fill it in before anything is stored. ``defaults`` fill only properties the
    vertex does not have yet (a model's description never overwrites a writer's)."""

    key: str
    type: str = ""
    properties: Mapping[str, object] = field(default_factory=dict)
    defaults: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EdgeRecord:
    """An edge with the evidence that supports it (never empty once stored). In a structured
    request (``ingestGraph``) the evidence names the request's pieces by ref and
    ``properties`` are the writer's own; the use case swaps in those pieces' chunk ids (none:
    the source's assertion) and keeps the properties as that source's (``edge_sources``)
    before the edge is stored. Stored ``properties`` (provenance such as ``extractedBy`` and
    ``confidence``) are set on a new edge and fill only what an existing edge lacks: the
    first writer's provenance stays; the per-source maps are united entry by entry."""

    from_key: str
    edge_type: str
    to_key: str
    evidence_chunk_ids: tuple[str, ...]
    properties: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EdgeEnding:
    """An explicit end of (from, relation, to) at a write unit's scope, valid until
    ``valid_at`` (None: now), for ``reason``, by ``ended_by``: what ``retractEdge`` writes,
    and a contradiction a model found (``CONTRADICTED``, by ``llm:<model>``)."""

    from_key: str
    edge_type: str
    to_key: str
    reason: EndReason
    ended_by: str
    valid_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """What is remembered about an ingested source."""

    scope: Scope
    source_urn: str
    kind: str
    content_hash: str
    main_node_key: str | None
    connection_id: str | None
    chunk_ids: tuple[str, ...]
    mentions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PurgeCounts:
    """What a purge (or the replacement of a source) removed."""

    sources: int = 0
    chunks: int = 0
    evidence_removed: int = 0
    edges_deleted: int = 0
    vertices_deleted: int = 0
    # Stored originals deleted, and queued or running jobs cancelled (a purge only).
    files_deleted: int = 0
    jobs_cancelled: int = 0

    def __add__(self, other: PurgeCounts) -> PurgeCounts:
        return PurgeCounts(
            self.sources + other.sources,
            self.chunks + other.chunks,
            self.evidence_removed + other.evidence_removed,
            self.edges_deleted + other.edges_deleted,
            self.vertices_deleted + other.vertices_deleted,
            self.files_deleted + other.files_deleted,
            self.jobs_cancelled + other.jobs_cancelled,
        )


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    """The result of one ingest."""

    status: IngestStatus
    content_hash: str
    chunk_ids: tuple[str, ...]
    nodes: tuple[str, ...]
    edges: tuple[EdgeRecord, ...]
    warnings: tuple[ExtractionWarning, ...] = ()
    replaced: PurgeCounts = PurgeCounts()


def source_identity(scope: Scope, source_urn: str) -> str:
    """A source's identity as one string. The scope is part of it, so two clients ingesting
    the same URN hold distinct sources, chunk ids and locks."""
    return "\x1f".join((scope.client_id, scope.project_id, scope.group_id, source_urn))
