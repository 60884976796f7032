"""Resolvers of session memory: append an entry, read the session's newest, delete one.

Each turns its arguments into the request of its use case
(``kenning.domain.memory.session_request``: ``append_for`` and ``session_for``, which MCP's
``append_session`` and ``get_session`` call too, and ``delete_for``) and its answer into
GraphQL types.
"""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.domain.memory.session import SessionEntry, SessionSource
from kenning.domain.memory.session_request import (
    AppendRequest,
    DeleteRequest,
    SessionRead,
    append_for,
    delete_for,
    session_for,
)
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import session as gql
from kenning.schema.memory.arguments import (
    AgentIdArgument,
    ReasonArgument,
    UserKeyArgument,
    WriteScopeArgument,
)

SummaryArgument = Annotated[str, strawberry.argument(description="At most 200 characters.")]
DetailsArgument = Annotated[
    JSON | None, strawberry.argument(description="A JSON object of at most 16 KiB.")
]
PromoteArgument = Annotated[
    bool, strawberry.argument(description="Also ingest the entry into the knowledge base.")
]


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
    summary: SummaryArgument,
    details: DetailsArgument = None,
    task_id: str | None = None,
    promote: PromoteArgument = False,
    scope: WriteScopeArgument = None,
    user_key: UserKeyArgument = None,
    agent_id: AgentIdArgument = None,
) -> gql.AppendSessionEntryResult:
    """Append an entry to the caller's client and project session."""
    request = AppendRequest(
        source, summary, details, task_id, promote, to_scope(scope), user_key, agent_id
    )
    done = await append_for(caller(info), request, info.context.runtime.session_deps())
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
    request = SessionRead(limit, to_scope(scope), user_key)
    found = await session_for(caller(info), request, info.context.runtime.session_entries)
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
    request = DeleteRequest(id, reason, to_scope(scope))
    deleted = await delete_for(caller(info), request, runtime.session_deletes, runtime.changes)
    return gql.DeleteSessionEntrySuccess(entry=to_entry_type(deleted))
