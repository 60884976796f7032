"""Types of the `ingest` mutation."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.request import IngestStatus, KnowledgeType
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import (
    ErasedSubject,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.extraction.errors import ModelUnavailable
from kenning.schema.queue.types import ConnectionRevokedError, IngestionIdentityInput

strawberry.enum(KnowledgeType, description="What kind of knowledge a piece is.")
strawberry.enum(IngestStatus, description="How an ingest ended.")
strawberry.enum(
    ExtractionMode,
    name="Extraction",
    description="NONE stores the graph the writer gave; LLM also has the extraction model "
    "read every chunk for entities and relations (background lane, priority 3), each "
    "extracted edge citing its chunk as evidence.",
)


@strawberry.enum(description="What to do with credentials found in content.")
class SecretPolicyInput(Enum):
    REJECT = SecretPolicy.REJECT.value
    REDACT = SecretPolicy.REDACT.value


@strawberry.input(description="One document to index.")
class IngestInput:
    source_urn: str
    kind: str
    content: str
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )
    main_node_key: str | None = None
    knowledge_type: KnowledgeType | None = None
    info_type: str | None = None
    tags: list[str] = strawberry.field(default_factory=list)
    metadata: JSON | None = None
    source_kind: str | None = None
    connection_id: str | None = None
    external_id: str | None = None
    revision: str | None = None
    relationships: list[str] = strawberry.field(
        default_factory=list,
        description="Relationships in any format: `a|rel|b`, `a->rel->b`, `a -[rel]-> b`.",
    )
    priority: int | None = strawberry.field(
        default=None,
        description="0 (highest) to 9: the lane of a queued job (0-2 PRIORITY, 3 and up "
        "BULK) and the model router's priority for its embeddings. Defaults to 1 for "
        "`ingest` (agents waiting for the answer) and to 3, the bulk lane, for "
        "`requestIngestion` and `requestIngestions`.",
    )
    secret_policy: SecretPolicyInput | None = strawberry.field(
        default=None, description="Overrides the server's policy for this request."
    )
    observed_at: datetime | None = strawberry.field(
        default=None,
        description="When the source says this was true (with a time zone; between 1900 "
        "and a day from now). Defaults to the time it is stored. Of two assertions of a "
        "relation declared ONE, the later observed one is current.",
    )
    supersedes: list[str] | None = strawberry.field(
        default=None,
        description="Source URNs at the same scope this one replaces (a new version of a "
        "policy under a new URN; at most 100): their edges that this source does not restate "
        "end (SUPERSEDED) and their chunks are marked superseded. Naming a source that is "
        "not stored at the scope is a ScopeError.",
    )
    extraction: ExtractionMode | None = strawberry.field(
        default=None,
        description="Graph extraction by the model; defaults to the server's setting for "
        "the kind (KENNING_EXTRACTION_BY_KIND), else NONE. A queued job with LLM runs an "
        "EXTRACTING stage after STORING; `ingest` returns once the chunks are stored and "
        "reports the extraction's job as `extractionJobId`.",
    )


@strawberry.input(
    description="One document of requestIngestions: what ingest takes, and what "
    "makes two requests the same work."
)
class IngestionRequestInput:
    input: IngestInput
    identity: IngestionIdentityInput


@strawberry.type(description="A chunk written by an ingest.")
class IngestedChunk:
    id: strawberry.ID
    ordinal: int


@strawberry.type(description="A directed, typed edge between two node keys.")
class EdgeTriple:
    from_key: str = strawberry.field(name="from")
    edge_type: str
    to_key: str = strawberry.field(name="to")


@strawberry.type(
    description="A line or item that could not be read (the rest was indexed), or a node key "
    "that normalization changed beyond case and whitespace (`key` as given, `normalizedKey` "
    "as stored): other spellings that normalize the same way name the same node."
)
class IngestWarning:
    source: str = strawberry.field(
        description="content, relationships, mainNodeKey (ingest); nodes or edges (ingestGraph)."
    )
    line: int = strawberry.field(description="The content line or the input item, from 1.")
    excerpt: str
    reason: str
    key: str | None = None
    normalized_key: str | None = None


@strawberry.type(description="The document was indexed, or was already indexed unchanged.")
class IngestSuccess:
    status: IngestStatus
    content_hash: str
    chunks: list[IngestedChunk]
    nodes: list[str]
    edges: list[EdgeTriple]
    warnings: list[IngestWarning]
    extraction_job_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="The queued job extracting this document's graph (LLM extraction); "
        "follow it with `ingestionStatus` or `ingestionProgress`.",
    )


IngestResult = Annotated[
    IngestSuccess
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | ConnectionRevokedError
    | ErasedSubject
    | ModelUnavailable,
    strawberry.union("IngestResult"),
]
