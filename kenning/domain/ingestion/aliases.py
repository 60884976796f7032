"""Alias registration: one name of a node made to resolve to another, per client."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key, normalize_key, parse_key
from kenning.domain.ingestion.ports import AliasResolver, KnowledgeStore, WriteUnit

logger = logging.getLogger("kenning.aliases")


@dataclass(frozen=True, slots=True)
class Alias:
    """A registered alias."""

    client_id: str
    alias_key: str
    canonical_key: str
    area: str
    seen_count: int
    last_seen_at: datetime | None


@dataclass(frozen=True, slots=True)
class AliasRegistration:
    """What registering an alias did."""

    alias: Alias
    merged_scopes: int


class AliasBook(Protocol):
    """Stored aliases (the registry's write side, inside a write unit)."""

    async def put(
        self, unit: WriteUnit, client_id: str, alias_key: str, canonical_key: str, area: str
    ) -> Alias:
        """Store or re-point an alias; also re-point aliases that pointed at ``alias_key``.
        The stored target may be ``canonical_key``'s own target if it became an alias."""
        ...

    async def canonical_of(self, client_id: str, key: str) -> str | None:
        """The canonical key ``key`` is an alias of, if it is one."""
        ...

    def forget(self, client_id: str, keys: set[str]) -> None:
        """Drop cached resolutions of ``keys``."""
        ...


class AliasRegistry(AliasBook, AliasResolver, Protocol):
    """A client's aliases as the API offers them: resolved, registered and listed."""

    async def list(self, client_id: str, limit: int = 1000) -> list[Alias]:
        """The client's aliases, at most ``limit``."""
        ...


async def alias_resolved(client_id: str, keys: list[str], aliases: AliasResolver) -> list[str]:
    """Canonical ``keys``, in order, with the client's aliases resolved."""
    if not keys:
        return []
    resolved = await aliases.resolve(client_id, set(keys))
    return [resolved.get(key, key) for key in keys]


def canonical_form(raw: str, field: str) -> str:
    """A key as every ingest would store it; ``ValidationError`` when malformed."""
    parse_key(raw, field=field)
    return canonicalize_key(normalize_key(raw))


async def register_alias(
    client_id: str,
    alias: str,
    canonical: str,
    *,
    area: str,
    book: AliasBook,
    store: KnowledgeStore,
) -> AliasRegistration:
    """Make ``alias`` resolve to ``canonical`` for the client, merging existing vertices.

    Chains are flattened: if ``canonical`` is itself an alias, its target is used; aliases
    that pointed at ``alias`` now point at the target too.
    """
    if not client_id:
        raise ValidationError("aliases belong to a client: clientId is required", field="clientId")
    alias_key = canonical_form(alias, "alias")
    target = canonical_form(canonical, "canonical")
    target = await book.canonical_of(client_id, target) or target
    if alias_key == target:
        raise ValidationError("an alias cannot resolve to itself", field="alias")
    if len(area) > 200:
        raise ValidationError("area must be at most 200 characters", field="area")

    async def work(unit: WriteUnit) -> AliasRegistration:
        stored = await book.put(unit, client_id, alias_key, target, area)
        merged = await unit.merge_alias(client_id, alias_key, stored.canonical_key)
        return AliasRegistration(stored, merged)

    result = await store.write(work)
    book.forget(client_id, {alias_key, target, result.alias.canonical_key})
    logger.info(
        "alias.registered",
        extra={
            "client_id": client_id,
            "alias": alias_key,
            "canonical": result.alias.canonical_key,
            "merged_scopes": result.merged_scopes,
        },
    )
    return result
