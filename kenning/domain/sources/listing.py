"""Sources a caller can see, and their stored originals, one page at a time (GraphQL's
``sources`` and ``storedFiles``, MCP's ``list_sources``).

Every read is scoped by the caller exactly as search is (``CallerScope.reading``): a filter
only narrows what the reader sees, so a filter naming another client's connection answers
as if that connection had no sources. Pages go in a fixed order (sources by URN, then scope;
files by source URN, then id) after an opaque cursor that names the last row of the page.

Example::

    page = await list_sources(caller, SourcesRead(SourceFilter(urn_prefix="web:")), catalog)
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Generic, Protocol, TypeVar

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.sources.files.stored import StoredFile

DEFAULT_PAGE: Final = 50
MAX_PAGE: Final = 200
MAX_FILTER_VALUES: Final = 100
MAX_TEXT: Final = 2048

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SourceFilter:
    """Which sources a listing returns; ``None`` means any (an empty list matches none)."""

    kinds: tuple[str, ...] | None = None
    source_kinds: tuple[str, ...] | None = None
    connection_ids: tuple[str, ...] | None = None
    urn_prefix: str | None = None


@dataclass(frozen=True, slots=True)
class SourceView:
    """One stored source as a reader sees it; ``file`` is the original it was indexed from."""

    scope: Scope
    source_urn: str
    kind: str
    source_kind: str | None
    connection_id: str | None
    chunk_count: int
    observed_at: datetime | None
    indexed_at: datetime
    file: StoredFile | None = None


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """Rows in the listing's order, the cursor after the last one, whether more follow."""

    nodes: tuple[T, ...]
    end_cursor: str | None
    has_next_page: bool


@dataclass(frozen=True, slots=True)
class SourcesRead:
    """A ``sources`` request: its filter, page and narrowing (None: the key's scope)."""

    filter: SourceFilter = SourceFilter()
    first: int = DEFAULT_PAGE
    after: str | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class PageRead:
    """A page request of a listing without a filter (``storedFiles``)."""

    first: int = DEFAULT_PAGE
    after: str | None = None
    scope: Scope | None = None


class SourceCatalog(Protocol):
    """Scoped listings of sources and originals; storage implements it."""

    async def sources(
        self, reader: Scope, where: SourceFilter, first: int, after: tuple[str, ...] | None
    ) -> list[SourceView]:
        """Up to ``first`` visible sources matching ``where`` after the row ``after`` names
        (URN, client, project, group), in that order."""
        ...

    async def files(
        self, reader: Scope, first: int, after: tuple[str, ...] | None
    ) -> list[StoredFile]:
        """Up to ``first`` visible originals after the row ``after`` names (URN, id)."""
        ...


def encode_cursor(listing: str, key: Sequence[str]) -> str:
    """An opaque cursor after the row ``key`` of ``listing``."""
    text = json.dumps([listing, *key], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(listing: str, cursor: str | None, size: int) -> tuple[str, ...] | None:
    """The row key a cursor of ``listing`` names; ``ValidationError`` on ``after`` otherwise."""
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        value = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        value = None
    if (
        not isinstance(value, list)
        or len(value) != size + 1
        or value[0] != listing
        or not all(isinstance(part, str) for part in value)
    ):
        raise ValidationError(f"after is not a cursor of {listing}", field="after")
    return tuple(value[1:])


def check_first(first: int) -> int:
    """``first`` when it is 1..``MAX_PAGE``; ``ValidationError`` naming it otherwise."""
    if isinstance(first, bool) or not 1 <= first <= MAX_PAGE:
        raise ValidationError(f"first must be 1..{MAX_PAGE}", field="first")
    return first


def _values(raw: Sequence[str] | None, field: str) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if len(raw) > MAX_FILTER_VALUES:
        raise TooLargeError(f"at most {MAX_FILTER_VALUES} values", field=field)
    for value in raw:
        if not value or len(value) > MAX_TEXT or not value.isprintable():
            raise ValidationError(
                f"each value must be 1..{MAX_TEXT} printable characters", field=field
            )
    return tuple(sorted(set(raw)))


def check_filter(where: SourceFilter) -> SourceFilter:
    """``where`` with its lists de-duplicated; ``ValidationError`` naming the bad field."""
    prefix = where.urn_prefix
    if prefix is not None and (not prefix or len(prefix) > MAX_TEXT or not prefix.isprintable()):
        raise ValidationError(
            f"urnPrefix must be 1..{MAX_TEXT} printable characters", field="urnPrefix"
        )
    return SourceFilter(
        _values(where.kinds, "kinds"),
        _values(where.source_kinds, "sourceKinds"),
        _values(where.connection_ids, "connectionIds"),
        prefix,
    )


def _source_key(view: SourceView) -> tuple[str, ...]:
    s = view.scope
    return (view.source_urn, s.client_id, s.project_id, s.group_id)


def page_of(
    listing: str, rows: Sequence[T], first: int, key: Callable[[T], Sequence[str]]
) -> Page[T]:
    """The first ``first`` of ``rows`` (read one deeper, so a further row says more follow)."""
    kept = tuple(rows[:first])
    end = encode_cursor(listing, key(kept[-1])) if kept else None
    return Page(kept, end, len(rows) > first)


async def list_sources(
    caller: CallerScope, asked: SourcesRead, catalog: SourceCatalog
) -> Page[SourceView]:
    """One page of the sources the caller may see that match the filter."""
    reader = caller.reading(asked.scope)
    first = check_first(asked.first)
    where = check_filter(asked.filter)
    after = decode_cursor("sources", asked.after, 4)
    rows = await catalog.sources(reader, where, first + 1, after)
    return page_of("sources", rows, first, _source_key)


async def list_stored_files(
    caller: CallerScope, asked: PageRead, catalog: SourceCatalog
) -> Page[StoredFile]:
    """One page of the stored originals the caller may see (those of its sources)."""
    reader = caller.reading(asked.scope)
    first = check_first(asked.first)
    after = decode_cursor("storedFiles", asked.after, 2)
    rows = await catalog.files(reader, first + 1, after)
    return page_of("storedFiles", rows, first, lambda f: (f.source_urn, f.id))
