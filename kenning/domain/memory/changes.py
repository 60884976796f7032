"""One audit trail for memory: every update, forget and delete of a memory item, every
``updateNode`` and every retracted edge records who (the API key's id), when, what (the
item's kind, id and key; its old and new state as JSON) and why (the caller's optional
``reason``).

``ChangeLog`` is the port: ``record`` writes one ``Change``, ``page`` reads them newest first.
A change carries the item's own scope and user, and is read exactly as the item is: session
entries by their session, everything else by the scope rule of chunks; a user's items only
for that user (shared ones for everyone). The graph's changes (``NODE``, ``EDGE``) are written
by its stores in the same transaction as the change itself (``node_history``, and the
relation store's retraction), with the vertex's or edge's scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final, Protocol

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.memory.owners import user_key_of
from kenning.domain.memory.pages import DEFAULT_PAGE, Page, before_of, check_first, page_of

MAX_FILTER: Final = 2048
CURSOR: Final = "changes"


class ItemKind(StrEnum):
    """What kind of item changed."""

    KNOWLEDGE = "KNOWLEDGE"
    PROCEDURE = "PROCEDURE"
    SESSION_ENTRY = "SESSION_ENTRY"
    NODE = "NODE"
    EDGE = "EDGE"


class ChangeAction(StrEnum):
    """What happened to it: a new version replaced the old, it was forgotten or deleted, or
    (an edge) it was retracted."""

    UPDATE = "UPDATE"
    FORGET = "FORGET"
    DELETE = "DELETE"
    RETRACT = "RETRACT"


@dataclass(frozen=True, slots=True)
class Change:
    """One change to record. ``scope`` and ``user_key`` are the item's (read like it);
    ``item_id`` identifies it (a procedure's id, a knowledge item's source URN), ``item_key``
    is how people name it (``PREFERENCE:editor``, a trigger, a node key), when it has one."""

    kind: ItemKind
    item_id: str
    item_key: str | None
    action: ChangeAction
    scope: Scope
    changed_by: str
    old: Mapping[str, object] | None = None
    new: Mapping[str, object] | None = None
    reason: str | None = None
    user_key: str | None = None


@dataclass(frozen=True, slots=True)
class RecordedChange:
    """A change as the log holds it: numbered and stamped."""

    seq: int
    change: Change
    changed_at: datetime


@dataclass(frozen=True, slots=True)
class ChangeFilter:
    """Which changes: of one item (``item_id``), of one key, of one user's items plus the
    shared ones (``user_key``; None: shared ones only)."""

    item_key: str | None = None
    item_id: str | None = None
    user_key: str | None = None


class ChangeLog(Protocol):
    """Where changes are kept (``kenning.storage.memory.changes``)."""

    async def record(self, change: Change) -> RecordedChange:
        """Append ``change``; it is readable at once."""
        ...

    async def page(
        self, reader: Scope, wanted: ChangeFilter, first: int, before: int | None
    ) -> list[RecordedChange]:
        """Up to ``first`` changes ``reader`` may see that match ``wanted``, older than
        ``before`` (newest when None), newest first."""
        ...


def _check_filter(value: str | None, field: str) -> None:
    if value is not None and (not value.strip() or len(value) > MAX_FILTER):
        raise ValidationError(f"{field} must be 1..{MAX_FILTER} characters", field=field)


async def change_page(
    reader: Scope,
    wanted: ChangeFilter,
    log: ChangeLog,
    *,
    first: int,
    after: str | None = None,
) -> Page[RecordedChange]:
    """One page of the changes ``reader`` may see, newest first (``first`` 1..50)."""
    check_first(first)
    _check_filter(wanted.item_key, "key")
    _check_filter(wanted.item_id, "itemId")
    before = before_of(CURSOR, after)
    found = await log.page(reader, wanted, first + 1, before)
    return page_of(CURSOR, found, first, lambda c: c.seq)


@dataclass(frozen=True, slots=True)
class ChangesRequest:
    """A page of the audit trail (``changes``): the filter's values as given, unchecked."""

    item_key: str | None = None
    item_id: str | None = None
    user_key: str | None = None
    first: int = DEFAULT_PAGE
    after: str | None = None
    scope: Scope | None = None


async def changes_for(
    caller: CallerScope, request: ChangesRequest, log: ChangeLog
) -> Page[RecordedChange]:
    """Changes of the items the caller may see (the user's and the shared ones), newest
    first."""
    wanted = ChangeFilter(request.item_key, request.item_id, user_key_of(request.user_key))
    reader = caller.reading(request.scope)
    return await change_page(reader, wanted, log, first=request.first, after=request.after)
