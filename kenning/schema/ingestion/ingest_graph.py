"""Types of the `ingestGraph` and `ingestGitCommits` mutations."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.ingestion.request import IngestStatus, KnowledgeType
from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import (
    ErasedSubject,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.ingestion.ingest import EdgeTriple, IngestedChunk, IngestWarning
from kenning.schema.queue.types import ConnectionRevokedError


@strawberry.input(description="A piece of text; edges cite it as evidence by `ref`.")
class GraphPieceInput:
    ref: str
    content: str
    knowledge_type: KnowledgeType | None = None
    info_type: str | None = None
    tags: list[str] = strawberry.field(default_factory=list)
    embedding_text: str | None = strawberry.field(
        default=None, description="Embedded instead of the content when given."
    )


@strawberry.input(description="A vertex with its type and properties.")
class GraphNodeInput:
    key: str
    type: str | None = None
    properties: JSON | None = None


@strawberry.input(
    description="An edge citing pieces of this request as its evidence, or citing none: then "
    "the source asserts it (ASSERTED evidence, as for an org chart or a structured import)."
)
class GraphEdgeInput:
    from_key: str = strawberry.field(name="from")
    edge_type: str
    to_key: str = strawberry.field(name="to")
    evidence: list[str] = strawberry.field(
        default_factory=list,
        description="Refs of the pieces of this request that state the edge (TEXT evidence). "
        "Empty: the source asserts the edge, recorded with the writing key and the time "
        "(Edge.assertedBy); purging the source removes it.",
    )
    properties: JSON | None = strawberry.field(
        default=None,
        description="The edge's own properties as this source gives them (a JSON object; "
        "credentials are refused or redacted as in any field). Each source's are kept apart "
        "and Edge.properties shows the newest by observedAt. A `piece_id` here names a piece "
        "as evidence, like `evidence`, and is not stored as a property.",
    )


@strawberry.input(description="Pre-structured knowledge from one source.")
class IngestGraphInput:
    source_urn: str
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )
    kind: str = "graph"
    pieces: list[GraphPieceInput] = strawberry.field(default_factory=list)
    nodes: list[GraphNodeInput] = strawberry.field(default_factory=list)
    edges: list[GraphEdgeInput] = strawberry.field(default_factory=list)
    metadata: JSON | None = strawberry.field(
        default=None,
        description='Entity id -> {"type": ..., "properties": {...}}: each entry is stored as '
        "a node (type:id when the id has no namespace); bad entries are rejected one by one.",
    )
    connection_id: str | None = None
    source_kind: str | None = None
    priority: int = 3
    observed_at: datetime | None = strawberry.field(
        default=None,
        description="When the source says its pieces were true (with a time zone; between "
        "1900 and a day from now): every chunk's observedAt and the validFrom of the edges "
        "they are evidence for. Defaults to the time they are stored.",
    )


@strawberry.type(description="An item that was not stored, and why.")
class RejectedItem:
    item: str
    index: int
    reason: str


@strawberry.type(description="What a structured ingest stored and rejected.")
class IngestGraphSuccess:
    status: IngestStatus
    content_hash: str
    chunks: list[IngestedChunk]
    nodes: list[str]
    edges: list[EdgeTriple]
    rejected: list[RejectedItem]
    warnings: list[IngestWarning] = strawberry.field(
        description="Node keys normalization changed beyond case and whitespace (source "
        "nodes or edges, line = the item's index + 1)."
    )


IngestGraphResult = Annotated[
    IngestGraphSuccess
    | ValidationError
    | SensitiveContentError
    | ErasedSubject
    | ScopeError
    | ConnectionRevokedError,
    strawberry.union("IngestGraphResult"),
]


@strawberry.input(description="A file a commit touched: M, A, D or R (with oldPath).")
class FileChangeInput:
    path: str
    change_type: str
    old_path: str | None = None


@strawberry.input(description="One commit.")
class GitCommitInput:
    hash: str
    message: str
    author: str
    date: datetime
    branch: str | None = None
    parents: list[str] = strawberry.field(default_factory=list)
    files: list[FileChangeInput] = strawberry.field(default_factory=list)
    diff: str = ""


@strawberry.input(description="Commits of one repository.")
class IngestGitCommitsInput:
    repository: str
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )
    commits: list[GitCommitInput]
    connection_id: str | None = None


@strawberry.type(description="Per commit: how its ingest ended.")
class CommitIngested:
    hash: str
    status: IngestStatus
    edges: int
    rejected: list[RejectedItem]


@strawberry.type(description="What a batch of commits produced.")
class IngestGitCommitsSuccess:
    commits: list[CommitIngested]


IngestGitCommitsResult = Annotated[
    IngestGitCommitsSuccess
    | ValidationError
    | SensitiveContentError
    | ErasedSubject
    | ScopeError
    | ConnectionRevokedError,
    strawberry.union("IngestGitCommitsResult"),
]
