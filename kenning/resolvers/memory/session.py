"""Resolvers of session memory: append an entry, read the session's newest."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.session import (
    SessionDeps,
    SessionDraft,
    SessionEntry,
    SessionSource,
    append_session_entry,
    session_memory,
)
from kenning.domain.memory.session_deletes import delete_session_entry
from kenning.resolvers.access.scope import principal, read_scope, stored_write_scope, write_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.memory.user_knowledge import (
    AgentIdArgument,
    ReasonArgument,
    UserKeyArgument,
)
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import session as gql


def to_entry_type(entry: SessionEntry) -> gql.SessionEntry:
    """The GraphQL form of a session entry."""
    return gql.SessionEntry(
        id=strawberry.ID(entry.id),
        source=entry.source,
        summary=entry.summary,
        details=JSON(dict(entry.details)),
        task_id=entry.task_id,
        promoted=entry.promoted,
        created_by=entry.created_by,
        created_at=entry.created_at,
        expires_at=entry.expires_at,
        user_key=entry.user_key,
        agent_id=entry.agent_id,
    )


@error_members
async def resolve_append_session_entry(
    info: Info,
    source: SessionSource,
    summary: Annotated[str, strawberry.argument(description="At most 200 characters.")],
    details: Annotated[
        JSON | None, strawberry.argument(description="A JSON object of at most 16 KiB.")
    ] = None,
    task_id: str | None = None,
    promote: Annotated[
        bool, strawberry.argument(description="Also ingest the entry into the knowledge base.")
    ] = False,
    scope: Annotated[
        ScopeInput | None,
        strawberry.argument(description="Defaults to the key's scope; may only narrow it."),
    ] = None,
    user_key: UserKeyArgument = None,
    agent_id: AgentIdArgument = None,
) -> gql.AppendSessionEntryResult:
    """Append an entry to the caller's client and project session."""
    runtime = info.context.runtime
    writer = await stored_write_scope(info, scope)
    deps = SessionDeps(
        store=runtime.session_entries,
        queue=runtime.queue.jobs,
        connections=runtime.queue.connections,
        policy=runtime.settings.secret_policy,
        ttl=timedelta(days=runtime.settings.session_ttl_days),
        guard=runtime.tombstones,
    )
    owner = owner_of(user_key, agent_id)
    draft = SessionDraft(source, summary, details, task_id, promote, owner)
    done = await append_session_entry(draft, writer, principal(info).key_id, deps)
    promotion = to_handle(done.promotion) if done.promotion is not None else None
    return gql.AppendSessionEntrySuccess(entry=to_entry_type(done.entry), promotion=promotion)


async def resolve_session_memory(
    info: Info,
    limit: Annotated[int, strawberry.argument(description="1..50.")] = 20,
    scope: NarrowScope = None,
    user_key: Annotated[
        str | None,
        strawberry.argument(description="The user: their entries and the shared ones."),
    ] = None,
) -> list[gql.SessionEntry]:
    """The newest unexpired entries of the caller's client and project session."""
    found = await session_memory(
        read_scope(info, scope),
        limit,
        info.context.runtime.session_entries,
        user_key_of(user_key),
    )
    return [to_entry_type(e) for e in found]


@error_members
async def resolve_delete_session_entry(
    info: Info,
    id: strawberry.ID,
    reason: ReasonArgument = None,
    scope: Annotated[
        ScopeInput | None,
        strawberry.argument(description="The session it is in: defaults to the key's."),
    ] = None,
) -> gql.DeleteSessionEntryResult:
    """Delete one entry of the caller's session; the change log keeps what it said."""
    runtime = info.context.runtime
    deleted = await delete_session_entry(
        write_scope(info, scope),
        id,
        principal(info).key_id,
        store=runtime.session_deletes,
        changes=runtime.changes,
        reason=reason,
    )
    return gql.DeleteSessionEntrySuccess(entry=to_entry_type(deleted))
