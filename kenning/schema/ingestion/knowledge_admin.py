"""Types of alias registration and purging."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.ingestion.request import PurgeCounts
from kenning.schema.errors import NotFoundError, ScopeError, ValidationError


@strawberry.type(description="An alias: `aliasKey` resolves to `canonicalKey` for a client.")
class AliasInfo:
    alias_key: str
    canonical_key: str
    area: str
    seen_count: int
    last_seen_at: datetime | None


@strawberry.type(description="The alias was stored; `mergedScopes` vertices were merged.")
class RegisterAliasSuccess:
    alias: AliasInfo
    merged_scopes: int


RegisterAliasResult = Annotated[
    RegisterAliasSuccess | ValidationError | ScopeError,
    strawberry.union("RegisterAliasResult"),
]


@strawberry.type(description="What a purge removed.")
class PurgeSuccess:
    sources: int
    chunks: int
    evidence_removed: int
    edges_deleted: int
    vertices_deleted: int
    files_deleted: int = strawberry.field(
        description="Stored originals deleted, those of uploads not yet indexed included."
    )
    jobs_cancelled: int = strawberry.field(
        description="Queued and running jobs cancelled because they would have written "
        "what the purge removed."
    )

    @classmethod
    def from_counts(cls, counts: PurgeCounts) -> PurgeSuccess:
        """The GraphQL form of what a purge (of a source or a connection) removed."""
        return cls(
            sources=counts.sources,
            chunks=counts.chunks,
            evidence_removed=counts.evidence_removed,
            edges_deleted=counts.edges_deleted,
            vertices_deleted=counts.vertices_deleted,
            files_deleted=counts.files_deleted,
            jobs_cancelled=counts.jobs_cancelled,
        )


PurgeResult = Annotated[
    PurgeSuccess | ValidationError | ScopeError | NotFoundError,
    strawberry.union("PurgeResult"),
]
