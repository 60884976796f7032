"""``search_knowledge``'s arguments, with their descriptions, and ``search_filters``, which
hands them to the search request's filters (as the GraphQL ``search`` arguments do)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from kenning.domain.retrieval.search import SearchFilters
from kenning.domain.retrieval.search_filters import with_arguments
from kenning.mcp.calls import time_argument

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
    # Times arrive as text and are parsed by ``time_argument``, so a malformed one (or a
    # NUL in it) is an INVALID naming it rather than the SDK's validation error.
    created_after: str | None = Field(None, description="Stored at or after (ISO 8601).")
    created_before: str | None = Field(None, description="Stored before (ISO 8601).")
    observed_after: str | None = Field(None, description="Observed at or after (ISO 8601).")
    observed_before: str | None = Field(None, description="Observed before (ISO 8601).")


Filters = Annotated[
    MoreFilters | None,
    Field(description="Narrow by info type, source kind, connection, node or time."),
]


@dataclass(frozen=True, slots=True)
class _Parsed:
    """``MoreFilters`` with its times parsed (``search_filters.FilterArguments``)."""

    info_types: list[str] | None
    source_kinds: list[str] | None
    connection_ids: list[str] | None
    entity_keys: list[str] | None
    created_after: datetime | None
    created_before: datetime | None
    observed_after: datetime | None
    observed_before: datetime | None


_TIMES = ("created_after", "created_before", "observed_after", "observed_before")


def search_filters(kinds: Filter, tags: Filter, more: MoreFilters | None) -> SearchFilters:
    """The tool's filter arguments as the search request's filters."""
    base = SearchFilters(kinds=tuple(kinds or ()), tags=tuple(tags or ()))
    if more is None:
        return base
    times = [time_argument(getattr(more, name), f"filters.{name}") for name in _TIMES]
    lists = (more.info_types, more.source_kinds, more.connection_ids, more.entity_keys)
    return with_arguments(base, _Parsed(*lists, *times))
