"""The Chunk type every read path returns."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.ingestion.request import KnowledgeType
from kenning.schema.access.scope import ScopeInfo, scope_info


@strawberry.type(description="A searchable piece of a source.")
class Chunk:
    id: strawberry.ID
    source_urn: str
    ordinal: int
    kind: str
    content: str
    scope: ScopeInfo
    graph_refs: list[str]
    knowledge_type: KnowledgeType | None
    info_type: str | None
    tags: list[str]
    source_kind: str | None
    connection_id: str | None
    external_id: str | None
    revision: str | None
    metadata: JSON
    created_at: datetime | None
    observed_at: datetime | None = strawberry.field(
        description="When its source says it was true (ingestion time unless told)."
    )
    superseded_at: datetime | None = strawberry.field(
        description="When it stopped being current: every edge it is evidence for ended, or "
        "a writer named its source in `supersedes`. Null while current."
    )
    superseded_by: str | None = strawberry.field(
        description="What superseded it: the newer source's URN, a key id, or `llm:<model>`."
    )

    @classmethod
    def from_view(cls, view: ChunkView) -> Chunk:
        """The GraphQL form of a read model (plain attributes: no resolver cost)."""
        return cls(
            id=strawberry.ID(view.id),
            source_urn=view.source_urn,
            ordinal=view.ordinal,
            kind=view.kind,
            content=view.content,
            scope=scope_info(view.scope),
            graph_refs=list(view.graph_refs),
            knowledge_type=KnowledgeType(view.knowledge_type) if view.knowledge_type else None,
            info_type=view.info_type,
            tags=list(view.tags),
            source_kind=view.source_kind,
            connection_id=view.connection_id,
            external_id=view.external_id,
            revision=view.revision,
            metadata=JSON(dict(view.metadata)),
            created_at=view.created_at,
            observed_at=view.observed_at,
            superseded_at=view.superseded_at,
            superseded_by=view.superseded_by,
        )
