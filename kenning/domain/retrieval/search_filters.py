"""What a search may be narrowed to beyond the reader's scope, and the checks on it.

Every filter is applied by the index inside the statement that ranks (``storage/retrieval``),
never to the hits after the limit: a filter that keeps 5 % of the chunks still gives
``limit`` hits when that many pass. Within one filter any value passes, all filters together.

Filters name values the index stores, never a registry row: a connection id of another
client matches nothing, exactly as an id no client uses, so a filter tells nothing about
what exists outside the reader's scope.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key, normalize_key, parse_key

MAX_FILTER_VALUES: Final = 100
# What ingestion accepts for an info type, a source kind or a connection id (``rules``): a
# value no chunk can carry is a mistake, not an empty answer.
_STORED_NAME: Final = re.compile(r"^[^\x00-\x1f\x7f]{1,200}$")


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Constraints beyond scope; an empty tuple or ``None`` constrains nothing.

    A chunk passes when its kind is one of ``kinds``, its knowledge type one of
    ``knowledge_types``, it carries at least one of ``tags``, its source is one of
    ``source_urns``, its info type one of ``info_types``, its source kind one of
    ``source_kinds``, its connection one of ``connection_ids``, its graph references name one
    of ``entity_keys`` (the chunk mentions the node or states a relationship of it), it was
    stored at or after ``created_after`` and before ``created_before``, and it was observed
    (``observed_at``) at or after ``observed_after`` and before ``observed_before`` (each only
    when given; a chunk with no observation time passes no observation bound).
    """

    kinds: tuple[str, ...] = ()
    knowledge_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    source_urns: tuple[str, ...] = ()
    info_types: tuple[str, ...] = ()
    source_kinds: tuple[str, ...] = ()
    connection_ids: tuple[str, ...] = ()
    entity_keys: tuple[str, ...] = ()
    created_after: datetime | None = None
    created_before: datetime | None = None
    observed_after: datetime | None = None
    observed_before: datetime | None = None


# Each list filter by its GraphQL (and MCP) argument name.
_LISTS: Final = (
    ("kinds", "kinds"),
    ("knowledgeTypes", "knowledge_types"),
    ("tags", "tags"),
    ("sourceUrns", "source_urns"),
    ("infoTypes", "info_types"),
    ("sourceKinds", "source_kinds"),
    ("connectionIds", "connection_ids"),
    ("entityKeys", "entity_keys"),
)
_STORED_NAMES: Final = frozenset({"info_types", "source_kinds", "connection_ids"})
_RANGES: Final = (
    ("createdAfter", "created_after", "createdBefore", "created_before"),
    ("observedAfter", "observed_after", "observedBefore", "observed_before"),
)


def check_filters(filters: SearchFilters) -> SearchFilters:
    """The filters with entity keys canonical and times in UTC (a time with no zone is UTC);
    ``ValidationError`` (or ``TooLargeError``) naming the first bad argument."""
    for name, attribute in _LISTS:
        values: tuple[str, ...] = getattr(filters, attribute)
        if len(values) > MAX_FILTER_VALUES:
            raise TooLargeError(f"{name} takes at most {MAX_FILTER_VALUES} values", field=name)
        if any(not value for value in values):
            raise ValidationError(f"{name} must not contain empty strings", field=name)
        if attribute in _STORED_NAMES and not all(_STORED_NAME.match(v) for v in values):
            raise ValidationError(f"{name}: each 1..200 printable characters", field=name)
    times = {attr: _utc(getattr(filters, attr)) for _, a, _, b in _RANGES for attr in (a, b)}
    for after_name, after, before_name, before in _RANGES:
        low, high = times[after], times[before]
        if low is not None and high is not None and low >= high:
            raise ValidationError(f"{after_name} must be before {before_name}", field=after_name)
    keys = tuple(dict.fromkeys(_entity_key(key) for key in filters.entity_keys))
    return dataclasses.replace(
        filters,
        entity_keys=keys,
        created_after=times["created_after"],
        created_before=times["created_before"],
        observed_after=times["observed_after"],
        observed_before=times["observed_before"],
    )


def check_vector_weight(weight: float | None) -> None:
    """``ValidationError`` unless ``weight`` is ``None`` or a number in 0..1."""
    if weight is not None and not (math.isfinite(weight) and 0.0 <= weight <= 1.0):
        raise ValidationError("vectorWeight must be between 0 and 1", field="vectorWeight")


def _entity_key(raw: str) -> str:
    parse_key(raw, field="entityKeys")
    return canonicalize_key(normalize_key(raw))


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class FilterArguments(Protocol):
    """The further filters as either face takes them (GraphQL's ``SearchFiltersInput``,
    MCP's ``filters`` object): the same names, lists or ``None``."""

    @property
    def info_types(self) -> Sequence[str] | None: ...
    @property
    def source_kinds(self) -> Sequence[str] | None: ...
    @property
    def connection_ids(self) -> Sequence[str] | None: ...
    @property
    def entity_keys(self) -> Sequence[str] | None: ...
    @property
    def created_after(self) -> datetime | None: ...
    @property
    def created_before(self) -> datetime | None: ...
    @property
    def observed_after(self) -> datetime | None: ...
    @property
    def observed_before(self) -> datetime | None: ...


def with_arguments(filters: SearchFilters, given: FilterArguments | None) -> SearchFilters:
    """``filters`` narrowed further by a face's filter arguments (``None``: none given)."""
    if given is None:
        return filters
    return dataclasses.replace(
        filters,
        info_types=tuple(given.info_types or ()),
        source_kinds=tuple(given.source_kinds or ()),
        connection_ids=tuple(given.connection_ids or ()),
        entity_keys=tuple(given.entity_keys or ()),
        created_after=given.created_after,
        created_before=given.created_before,
        observed_after=given.observed_after,
        observed_before=given.observed_before,
    )
