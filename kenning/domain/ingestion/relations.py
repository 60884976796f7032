"""Relations a client declares, edge timelines, and retraction: the use cases that end or
re-time edges outside an ingest.

A relation is declared per client: ``ONE`` (one target at a time from a node: a newer
assertion ends the older edge, see ``validity``) or ``MANY`` (every target holds until
retracted; what an undeclared relation is). Declaring ``ONE`` over edges that already have
several current targets keeps the newest per node and ends the rest, and says how many.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Protocol

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.node_keys import normalize_edge_type, parse_key
from kenning.domain.ingestion.reasons import check_reason
from kenning.domain.ingestion.validity import Cardinality, EndReason

MAX_DESCRIPTION: Final = 2000
MAX_RELATIONS: Final = 500
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Relation:
    """A client's declaration of one edge type."""

    edge_type: str
    cardinality: Cardinality
    description: str
    defined_by: str
    defined_at: datetime


@dataclass(frozen=True, slots=True)
class Declared:
    """A declaration stored, and how many current edges it ended (``ONE`` over several
    current targets)."""

    relation: Relation
    edges_ended: int


@dataclass(frozen=True, slots=True)
class IntervalView:
    """One interval of (from, relation, to) at one scope, as ``edgeHistory`` lists it."""

    from_key: str
    edge_type: str
    to_key: str
    scope: Scope
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    ended_at: datetime | None
    ended_reason: EndReason | None
    ended_by: str | None


class RelationStore(Protocol):
    """Declarations, timelines and endings; storage implements it."""

    async def declare(
        self, client_id: str, edge_type: str, cardinality: Cardinality, description: str,
        defined_by: str,
    ) -> Declared: ...  # fmt: skip

    async def relations(self, client_id: str) -> list[Relation]: ...

    async def history(
        self, reader: Scope, from_key: str, edge_type: str, to_key: str | None
    ) -> list[IntervalView]: ...

    async def end(
        self,
        scope: Scope,
        from_key: str,
        edge_type: str,
        to_key: str,
        reason: EndReason,
        ended_by: str,
        why: str | None = None,
    ) -> bool:
        """End the edge now for ``reason``, by ``ended_by``; a retraction is also recorded
        in ``changes`` (with ``why``), in the same transaction. False when none held."""
        ...


def _edge_type(value: str) -> str:
    try:
        return normalize_edge_type(value)
    except ValidationError as error:
        raise ValidationError(error.message, field="edgeType") from error


async def define_relation(
    caller: Principal,
    target: Scope,
    edge_type: str,
    cardinality: Cardinality,
    description: str,
    store: RelationStore,
) -> Declared:
    """Declare ``edge_type`` for ``target``'s client (admin or agent keys owning the client
    itself: a project key cannot change what its client's relations mean)."""
    if target.project_id or target.group_id:
        raise ScopeError("relations are declared per client: use a key of the whole client")
    caller.writing(target)
    if len(description) > MAX_DESCRIPTION or _CONTROL.search(description):
        raise ValidationError(
            f"description must be at most {MAX_DESCRIPTION} printable characters",
            field="description",
        )
    kind = _edge_type(edge_type)
    if len(await store.relations(target.client_id)) >= MAX_RELATIONS:
        declared = {r.edge_type for r in await store.relations(target.client_id)}
        if kind not in declared:
            raise TooLargeError(f"at most {MAX_RELATIONS} relations per client", field="edgeType")
    return await store.declare(target.client_id, kind, cardinality, description, caller.key_id)


def edge_keys(from_key: str, edge_type: str, to_key: str | None) -> tuple[str, str, str | None]:
    """The canonical (from, relation, to) of an edge named by a caller; each bad part is a
    ValidationError naming its argument."""
    source = parse_key(from_key, field="from").key
    target = None if to_key is None else parse_key(to_key, field="to").key
    return source, _edge_type(edge_type), target


async def retract_edge(
    caller: Principal,
    target: Scope,
    keys: tuple[str, str, str],
    store: RelationStore,
    reason: str | None = None,
) -> bool:
    """End (from, relation, to) at ``target`` now, reason RETRACTED, by the caller's key
    (and why, for the change log); the edge and its evidence stay, in its history. False
    when no such edge held."""
    caller.writing(target)
    why = check_reason(reason)
    source, kind, end = keys
    return await store.end(target, source, kind, end, EndReason.RETRACTED, caller.key_id, why)


async def edge_history(
    reader: Scope, keys: tuple[str, str, str | None], store: RelationStore
) -> Sequence[IntervalView]:
    """Every interval of (from, relation[, to]) the reader can see, oldest first."""
    source, kind, end = keys
    return await store.history(reader, source, kind, end)
