"""``search_knowledge``'s arguments, with their descriptions, and ``search_filters``, which
hands them to the search request's filters (as the GraphQL ``search`` arguments do)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from kenning.domain.retrieval.search import SearchFilters
from kenning.domain.retrieval.search_filters import with_arguments

Filter = Annotated[list[str] | None, Field(description="Any of these values (omit: no filter).")]
VectorWeight = Annotated[
    float | None,
    Field(
        description="HYBRID only: the weight of meaning against keywords, 0..1 (omit: the "
        "server's weights; 0 keywords alone, 1 meaning alone)."
    ),
]


class MoreFilters(BaseModel):
    """Further filters, each inside the ranking (any value within one, all together)."""

    info_types: list[str] | None = Field(None, description="Chunks of these info types.")
    source_kinds: list[str] | None = Field(None, description="Chunks of these source kinds.")
    connection_ids: list[str] | None = Field(None, description="Chunks of these connections.")
    entity_keys: list[str] | None = Field(
        None, description="Chunks mentioning these nodes (keys such as 'service:billing')."
    )
    created_after: datetime | None = Field(None, description="Stored at or after (ISO 8601).")
    created_before: datetime | None = Field(None, description="Stored before (ISO 8601).")
    observed_after: datetime | None = Field(None, description="Observed at or after.")
    observed_before: datetime | None = Field(None, description="Observed before.")


Filters = Annotated[
    MoreFilters | None,
    Field(description="Narrow by info type, source kind, connection, node or time."),
]


def search_filters(kinds: Filter, tags: Filter, more: MoreFilters | None) -> SearchFilters:
    """The tool's filter arguments as the search request's filters."""
    return with_arguments(SearchFilters(kinds=tuple(kinds or ()), tags=tuple(tags or ())), more)
