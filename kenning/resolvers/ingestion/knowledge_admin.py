"""Resolvers of alias registration, alias listing and purging (``purgeSource`` and
``purgeConnection`` through ``kenning.domain.ingestion.purge_request``, as MCP's
``purge_source`` calls it)."""

from __future__ import annotations

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.aliases import Alias, register_alias
from kenning.domain.ingestion.purge_request import purge_asked_connection, purge_asked_source
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, manage_client, read_scope, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import ScopeInput
from kenning.schema.ingestion.knowledge_admin import (
    AliasInfo,
    PurgeResult,
    PurgeSuccess,
    RegisterAliasResult,
    RegisterAliasSuccess,
)

MAX_ALIASES = 1000


def _alias(alias: Alias) -> AliasInfo:
    return AliasInfo(
        alias_key=alias.alias_key,
        canonical_key=alias.canonical_key,
        area=alias.area,
        seen_count=alias.seen_count,
        last_seen_at=alias.last_seen_at,
    )


@error_members
async def resolve_register_alias(
    info: Info, alias: str, canonical: str, area: str = "", scope: ScopeInput | None = None
) -> RegisterAliasResult:
    """Make `alias` resolve to `canonical` for the client (admin keys); merge its nodes."""
    runtime = info.context.runtime
    client = manage_client(info, scope)
    result = await register_alias(
        client, alias, canonical, area=area, book=runtime.aliases, store=runtime.store
    )
    return RegisterAliasSuccess(alias=_alias(result.alias), merged_scopes=result.merged_scopes)


async def resolve_aliases(
    info: Info, limit: int = 100, scope: ScopeInput | None = None
) -> list[AliasInfo]:
    """The client's aliases, most recently seen first."""
    if not 1 <= limit <= MAX_ALIASES:
        raise ValidationError(f"limit must be 1..{MAX_ALIASES}", field="limit")
    client = read_scope(info, scope).client_id
    return [_alias(a) for a in await info.context.runtime.aliases.list(client, limit)]


@error_members
async def resolve_purge_source(
    info: Info, source_urn: str, scope: ScopeInput | None = None
) -> PurgeResult:
    """Remove one source and everything only it supported."""
    ports = info.context.runtime.purge_ports()
    counts = await purge_asked_source(caller(info), source_urn, to_scope(scope), ports)
    return PurgeSuccess.from_counts(counts)


@error_members
async def resolve_purge_connection(
    info: Info, connection_id: str, scope: ScopeInput | None = None
) -> PurgeResult:
    """Remove every source of one connection and everything only they supported."""
    ports = info.context.runtime.purge_ports()
    counts = await purge_asked_connection(caller(info), connection_id, to_scope(scope), ports)
    return PurgeSuccess.from_counts(counts)
