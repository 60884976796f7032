"""Resolvers of the connection lifecycle."""

from __future__ import annotations

from kenning.domain.connections.lifecycle import (
    register_connection,
    revoke_connection,
    update_sync_cursor,
)
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.source_connections import ConnectionSpec, SourceConnection
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import principal, read_scope, stored_write_scope, write_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import ScopeInput, scope_info
from kenning.schema.connections import types as gql
from kenning.schema.ingestion.knowledge_admin import PurgeSuccess

MAX_CONNECTIONS = 500


def to_connection_type(found: SourceConnection) -> gql.SourceConnectionInfo:
    """The GraphQL form of a connection (cursors included, credentials never stored)."""
    spec = found.spec
    return gql.SourceConnectionInfo(
        connection_id=spec.connection_id,
        authority=spec.authority,
        label=spec.label,
        scope=scope_info(spec.scope),
        status=found.status,
        allowed_source_kinds=list(spec.allowed_source_kinds),
        root=spec.root,
        owner=spec.owner,
        sync_cursors=[
            gql.SyncCursorInfo(name=c.name, value=c.value, updated_at=c.updated_at)
            for c in found.cursors
        ],
        created_at=found.created_at,
        updated_at=found.updated_at,
        revoked_at=found.revoked_at,
        revoke_reason=found.revoke_reason,
    )


@error_members
async def resolve_register_connection(
    info: Info, input: gql.RegisterConnectionInput
) -> gql.RegisterConnectionResult:
    """Store a connection and queue its summary document."""
    queue = info.context.runtime.queue
    spec = ConnectionSpec(
        connection_id=input.connection_id,
        authority=input.authority,
        label=input.label,
        scope=await stored_write_scope(info, input.scope),
        allowed_source_kinds=tuple(input.allowed_source_kinds),
        root=input.root,
        owner=input.owner,
    )
    done = await register_connection(spec, queue.connections, queue.jobs)
    return gql.RegisterConnectionSuccess(
        connection=to_connection_type(done.connection), summary=to_handle(done.summary)
    )


@error_members
async def resolve_update_sync_cursor(
    info: Info, connection_id: str, cursor_name: str, value: str, scope: ScopeInput | None = None
) -> gql.SyncCursorResult:
    """Remember where a connector stopped reading one feed."""
    registry = info.context.runtime.queue.connections
    client = write_scope(info, scope).client_id
    cursor = await update_sync_cursor(
        client, connection_id, cursor_name, value, principal(info), registry
    )
    return gql.SyncCursorInfo(name=cursor.name, value=cursor.value, updated_at=cursor.updated_at)


@error_members
async def resolve_revoke_connection(
    info: Info, connection_id: str, reason: str, scope: ScopeInput | None = None
) -> gql.RevokeConnectionResult:
    """Cancel the connection's queued jobs, purge what it produced, mark it REVOKED."""
    runtime = info.context.runtime
    if not reason.strip() or len(reason) > 2000:
        raise ValidationError("reason must be 1..2000 characters", field="reason")
    client = write_scope(info, scope).client_id
    done = await revoke_connection(
        client,
        connection_id,
        reason,
        principal(info),
        registry=runtime.queue.connections,
        queue=runtime.queue.jobs,
        store=runtime.store,
    )
    return gql.RevokeConnectionSuccess(
        connection=to_connection_type(done.connection),
        cancelled_jobs=done.cancelled_jobs,
        purged=PurgeSuccess.from_counts(done.purged),
    )


async def resolve_connection(
    info: Info, connection_id: str, scope: ScopeInput | None = None
) -> gql.SourceConnectionInfo | None:
    """A connection the caller may see, with its sync cursors; null when none."""
    reader = read_scope(info, scope)
    runtime = info.context.runtime
    found = await runtime.queue.connections.get(reader.client_id, connection_id)
    if found is None:
        return None
    if not reader.can_see(
        found.spec.scope, await runtime.project_groups.of_client(reader.client_id)
    ):
        return None
    return to_connection_type(found)


async def resolve_connections(
    info: Info, first: int = 100, scope: ScopeInput | None = None
) -> list[gql.SourceConnectionInfo]:
    """Connections the caller may see, newest first."""
    if not 1 <= first <= MAX_CONNECTIONS:
        raise ValidationError(f"first must be 1..{MAX_CONNECTIONS}", field="first")
    found = await info.context.runtime.queue.connections.visible(read_scope(info, scope), first)
    return [to_connection_type(c) for c in found]
