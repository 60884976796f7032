"""Session memory's requests, as GraphQL and MCP make them: append an entry
(``appendSessionEntry``, ``append_session``), read the newest (``sessionMemory``,
``get_session``) and delete one (``deleteSessionEntry``). Each settles the caller's scope
first, then runs the rules of ``session`` and ``session_deletes``."""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.memory.changes import ChangeLog
from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.session import (
    Appended,
    SessionDeps,
    SessionDraft,
    SessionEntry,
    SessionSource,
    SessionStore,
    append_session_entry,
    session_memory,
)
from kenning.domain.memory.session_deletes import SessionEntryDeleter, delete_session_entry


@dataclass(frozen=True, slots=True)
class AppendRequest:
    """One entry to append; ``scope`` None is the key's own."""

    source: SessionSource | str
    summary: str
    details: object = None
    task_id: str | None = None
    promote: bool = False
    scope: Scope | None = None
    user_key: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class SessionRead:
    """The newest ``limit`` entries of a session, for ``user_key`` (None: the shared ones)."""

    limit: int = 20
    scope: Scope | None = None
    user_key: str | None = None


@dataclass(frozen=True, slots=True)
class DeleteRequest:
    """One entry of the caller's session to delete, and why."""

    entry_id: str
    reason: str | None = None
    scope: Scope | None = None


async def append_for(caller: CallerScope, request: AppendRequest, deps: SessionDeps) -> Appended:
    """Append an entry to the caller's session (queued for ingestion when promoted)."""
    writer = await caller.stored_writing(request.scope)
    owner = owner_of(request.user_key, request.agent_id)
    draft = SessionDraft(
        request.source, request.summary, request.details, request.task_id, request.promote, owner
    )
    return await append_session_entry(draft, writer, caller.principal.key_id, deps)


async def session_for(
    caller: CallerScope, request: SessionRead, store: SessionStore
) -> list[SessionEntry]:
    """The newest unexpired entries of the caller's session: the user's and the shared ones."""
    reader = caller.reading(request.scope)
    return await session_memory(reader, request.limit, store, user_key_of(request.user_key))


async def delete_for(
    caller: CallerScope, request: DeleteRequest, store: SessionEntryDeleter, changes: ChangeLog
) -> SessionEntry:
    """Delete one entry of the caller's session; the change log keeps what it said."""
    return await delete_session_entry(
        caller.writing(request.scope),
        request.entry_id,
        caller.principal.key_id,
        store=store,
        changes=changes,
        reason=request.reason,
    )
