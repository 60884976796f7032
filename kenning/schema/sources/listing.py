"""Types of the source listings: ``sources`` (with ``SourceFilterInput``) and ``storedFiles``,
each one page at a time (``SourcePage``, ``StoredFilePage``)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from kenning.schema.access.scope import ScopeInfo
from kenning.schema.sources.files import StoredFile


@strawberry.input(description="Which sources to list; every field is optional (omit: any).")
class SourceFilterInput:
    kinds: list[str] | None = strawberry.field(
        default=None, description="Any of these kinds (at most 100 values)."
    )
    source_kinds: list[str] | None = strawberry.field(
        default=None, description="Any of these source kinds (web, code, ...; at most 100)."
    )
    connection_ids: list[str] | None = strawberry.field(
        default=None,
        description="Any of these connections (at most 100); another client's connection "
        "lists nothing, as one with no sources.",
    )
    urn_prefix: str | None = strawberry.field(
        default=None, description="Source URNs starting with this text (e.g. `web:`)."
    )


@strawberry.type(description="A stored source the caller may see.")
class Source:
    source_urn: str
    kind: str
    source_kind: str | None = strawberry.field(
        description="What it came from (web, code, a connection's kind); null when not said."
    )
    connection_id: str | None
    chunk_count: int
    observed_at: datetime | None = strawberry.field(
        description="When the source says its content was true; null: when it was indexed."
    )
    indexed_at: datetime = strawberry.field(description="When it was last written.")
    scope: ScopeInfo
    stored_file: StoredFile | None = strawberry.field(
        description="The original (ingestFile) it was indexed from; null for other sources."
    )


@strawberry.type(
    description="Sources by URN, then scope (first: 1..200, default 50), one page at a time."
)
class SourcePage:
    nodes: list[Source]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the next page; null on an empty page."
    )
    has_next_page: bool


@strawberry.type(description="Stored originals by source URN, then id (first: 1..200, default 50).")
class StoredFilePage:
    nodes: list[StoredFile]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the next page; null on an empty page."
    )
    has_next_page: bool
