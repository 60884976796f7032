"""A node's past: every value each of its properties held, with what stated it (a source's
URN, or the key that corrected it), when it held (``observed_at``), when Kenning learned it
(``recorded_at``) and when and by what it was replaced or removed (``ended_at``,
``ended_by``). ``updateNode`` corrects a node; ``nodeHistory`` pages the versions.

A version belongs to one vertex (one scope) of the key and is read exactly as that vertex is:
a reader sees the versions of the vertices it can see, never another scope's. A correction
acts on the vertex at exactly the caller's write scope; a key with no vertex there is
``NotFoundError`` whether or not it exists anywhere else. The vertex, its history and the
``changes`` record of a correction are written in one transaction (the store's job).

Values that predate migration 0028 are version 1 of their history, recorded by it with no
source and no observed time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError
from kenning.domain.ingestion.node_properties import (
    PropertyChange,
    PropertyPatch,
    check_name,
    check_patch,
)
from kenning.domain.ingestion.reasons import check_reason
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.validity import checked_observed_at
from kenning.domain.memory.pages import DEFAULT_PAGE, Page, before_of, check_first, page_of

CURSOR: Final = "nodeHistory"


@dataclass(frozen=True, slots=True)
class PropertyVersion:
    """One value one property of one vertex held; current while ``ended_at`` is None."""

    seq: int
    node_key: str
    name: str
    value: object
    scope: Scope
    source: str | None  # the source URN that stated it; None for a correction
    changed_by: str | None  # the key that set it with updateNode (or the migration)
    observed_at: datetime | None  # when it held, as its writer said; None: not known
    recorded_at: datetime
    ended_at: datetime | None = None
    ended_by: str | None = None  # the source or key that replaced or removed it


@dataclass(frozen=True, slots=True)
class Correction:
    """Who corrects a node (an API key's id), why, and since when the new values hold."""

    by: str
    reason: str | None = None
    observed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class NodeUpdate:
    """What a correction changed on the vertex of ``key`` at ``scope`` (nothing: no change)."""

    key: str
    scope: Scope
    changes: tuple[PropertyChange, ...]


class NodeHistoryStore(Protocol):
    """Corrections and versions of node properties (``kenning.storage.memory.node_history``)."""

    async def update(
        self, target: Scope, key: str, patch: PropertyPatch, correction: Correction
    ) -> NodeUpdate | None:
        """Apply ``patch`` to the vertex of ``key`` at exactly ``target``, keep what it
        replaces in the history and record the change, in one transaction; None when there
        is no such vertex."""
        ...

    async def versions(
        self, reader: Scope, key: str, name: str | None, first: int, before: int | None
    ) -> list[PropertyVersion]:
        """Up to ``first`` versions of ``key`` (of property ``name`` only, when given) of
        the vertices ``reader`` may see, older than ``before`` (None: newest), newest first."""
        ...


async def update_node(
    caller: Principal,
    target: Scope,
    key: str,
    values: object,
    unset: list[str] | None,
    store: NodeHistoryStore,
    policy: SecretPolicy,
    *,
    reason: str | None = None,
    observed_at: datetime | None = None,
) -> NodeUpdate:
    """Set ``values`` and remove ``unset`` on the node ``key`` (canonical) at ``target``;
    the values it replaces stay in its history. ``NotFoundError`` on ``key`` when it has
    no vertex at ``target``."""
    caller.writing(target)
    patch = check_patch(values, unset, policy)
    why = check_reason(reason)
    when = checked_observed_at(observed_at, datetime.now(UTC), "observedAt")
    updated = await store.update(target, key, patch, Correction(caller.key_id, why, when))
    if updated is None:
        raise NotFoundError(f"no node {key!r} at this scope", field="key")
    return updated


async def node_history(
    reader: Scope,
    key: str,
    store: NodeHistoryStore,
    *,
    name: str | None = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
) -> Page[PropertyVersion]:
    """One page of the versions of ``key`` (canonical) ``reader`` may see, newest first
    (``first`` 1..50); only property ``name``'s when given."""
    check_first(first)
    if name is not None:
        check_name(name, "name")
    before = before_of(CURSOR, after)
    found = await store.versions(reader, key, name, first + 1, before)
    return page_of(CURSOR, found, first, lambda v: v.seq)
