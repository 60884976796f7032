"""Opaque cursors of the memory's history pages and change log: each names the ``seq`` of the
last row a page returned, under a prefix of its own, so a cursor of one list is refused by
another instead of silently paging it."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from kenning.domain.errors import ValidationError

DEFAULT_PAGE: Final = 20
MAX_PAGE: Final = 50
_MAX_SEQ: Final = 2**63  # rows are numbered by a PostgreSQL bigint

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """Rows newest first, the cursor after the last one and whether older rows exist."""

    nodes: tuple[T, ...]
    end_cursor: str | None
    has_next_page: bool


def cursor(prefix: str, seq: int) -> str:
    """An opaque cursor after row ``seq`` of the list named ``prefix``."""
    return base64.urlsafe_b64encode(f"{prefix}:{seq}".encode()).decode().rstrip("=")


def position(prefix: str, value: str) -> int:
    """The ``seq`` a ``cursor(prefix, ...)`` names; ``ValidationError`` on ``after`` otherwise."""
    try:
        text = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        head, _, seq = text.partition(":")
        found = int(seq) if head == prefix and seq.isdigit() else 0
    except (ValueError, binascii.Error, UnicodeDecodeError):
        found = 0
    if not 1 <= found < _MAX_SEQ:
        raise ValidationError(f"after is not a cursor of this {prefix} list", field="after")
    return found


def check_first(first: int) -> None:
    """Raise ``ValidationError`` naming ``first`` unless 1 <= first <= ``MAX_PAGE``."""
    if not 1 <= first <= MAX_PAGE:
        raise ValidationError(f"first must be 1..{MAX_PAGE}", field="first")


def before_of(prefix: str, after: str | None) -> int | None:
    """The ``seq`` rows must be older than, from the ``after`` argument (None: newest)."""
    return None if after is None else position(prefix, after)


def page_of(prefix: str, rows: Sequence[T], first: int, seq: Callable[[T], int]) -> Page[T]:
    """The first ``first`` of ``rows`` (read ``first + 1`` deep, so one more row says there
    is a next page) as a page; ``seq`` gives a row's number for the cursor."""
    kept = tuple(rows[:first])
    end = cursor(prefix, seq(kept[-1])) if kept else None
    return Page(kept, end, len(rows) > first)
