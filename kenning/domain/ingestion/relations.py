"""Relations a client declares, edge timelines, and retraction: the use cases that end or
re-time edges outside an ingest.

A relation is declared per client: ``ONE`` (one target at a time from a node: a newer
assertion ends the older edge, see ``validity``) or ``MANY`` (every target holds until
retracted; what an undeclared relation is). Declaring ``ONE`` over edges that already have
several current targets keeps the newest per node and ends the rest, and says how many.

``defineRelation`` declares one; a knowledge file may declare several with its load
(``Declarations``, stored by the write unit). Both check a declaration the same way
(``declaration``) and allow the same keys (``may_declare``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Sequence
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
PER_CLIENT: Final = "relations are declared per client: use a key of the whole client"
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
class Declaration:
    """One relation a writer declares (checked: ``declaration``)."""

    edge_type: str
    cardinality: Cardinality
    description: str = ""


@dataclass(frozen=True, slots=True)
class Declarations:
    """Relations declared with a write (a knowledge file's ``relations``), by key
    ``defined_by``; ``field`` names them in a ``TooLargeError``."""

    relations: tuple[Declaration, ...]
    defined_by: str
    field: str = "relations"

    def hashed_with(self, digest: str) -> str:
        """A source's content hash ``digest`` extended by these declarations: the same
        items declared otherwise are another source, not a duplicate."""
        listed = sorted([r.edge_type, r.cardinality.value, r.description] for r in self.relations)
        return hashlib.sha256(json.dumps([digest, listed]).encode()).hexdigest()


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
        self,
        client_id: str,
        edge_type: str,
        cardinality: Cardinality,
        description: str,
        defined_by: str,
    ) -> Declared: ...

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


def _edge_type(value: str, field: str = "edgeType") -> str:
    try:
        return normalize_edge_type(value)
    except ValidationError as error:
        raise ValidationError(error.message, field=field) from error


def declaration(
    edge_type: str, cardinality: Cardinality, description: str, field: str = ""
) -> Declaration:
    """A checked declaration: the edge type normalized, the description printable and at
    most ``MAX_DESCRIPTION`` long; a ValidationError names ``field`` + the bad argument."""
    if len(description) > MAX_DESCRIPTION or _CONTROL.search(description):
        raise ValidationError(
            f"description must be at most {MAX_DESCRIPTION} printable characters",
            field=f"{field}description",
        )
    return Declaration(_edge_type(edge_type, f"{field}edgeType"), cardinality, description)


def may_declare(caller: Principal, client_id: str) -> None:
    """Raise ``ScopeError`` unless ``caller`` may declare ``client_id``'s relations: admin
    or agent keys of the whole client (or global ones). A project key cannot change what its
    client's relations mean."""
    if caller.scope.project_id or caller.scope.group_id:
        raise ScopeError(PER_CLIENT)
    caller.writing(Scope(client_id))


def check_room(declared: Collection[str], adding: Collection[str], field: str) -> None:
    """Raise ``TooLargeError`` (naming ``field``) when ``adding`` edge types to the client's
    ``declared`` ones would pass ``MAX_RELATIONS``."""
    if len(set(declared) | set(adding)) > MAX_RELATIONS:
        raise TooLargeError(f"at most {MAX_RELATIONS} relations per client", field=field)


async def define_relation(
    caller: Principal,
    target: Scope,
    edge_type: str,
    cardinality: Cardinality,
    description: str,
    store: RelationStore,
) -> Declared:
    """Declare ``edge_type`` for ``target``'s client (``may_declare``)."""
    if target.project_id or target.group_id:
        raise ScopeError(PER_CLIENT)
    may_declare(caller, target.client_id)
    declared = declaration(edge_type, cardinality, description)
    existing = [r.edge_type for r in await store.relations(target.client_id)]
    check_room(existing, [declared.edge_type], "edgeType")
    return await store.declare(
        target.client_id, declared.edge_type, cardinality, description, caller.key_id
    )


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
