"""Deleting one session entry: from the writer's own session only, recorded in the change log
(a ``DELETE`` with the entry as it was). An entry of any other session, expired or never
written is answered alike: ``NotFoundError`` on ``id``."""

from __future__ import annotations

from typing import Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError
from kenning.domain.ingestion.reasons import check_reason
from kenning.domain.memory.changes import Change, ChangeAction, ChangeLog, ItemKind
from kenning.domain.memory.session import SessionEntry, SessionKey, session_key


class SessionEntryDeleter(Protocol):
    """Removes entries (``kenning.storage.memory.session_entries``)."""

    async def delete(self, session: SessionKey, entry_id: str) -> SessionEntry | None:
        """Remove the unexpired entry of ``session``; None when it holds no such entry."""
        ...


def entry_json(entry: SessionEntry) -> dict[str, object]:
    """An entry as the change log shows it."""
    return {
        "source": entry.source.value,
        "summary": entry.summary,
        "details": dict(entry.details),
        "taskId": entry.task_id,
        "agentId": entry.agent_id,
        "createdAt": entry.created_at.isoformat(),
    }


async def delete_session_entry(
    writer: Scope,
    entry_id: str,
    by: str,
    *,
    store: SessionEntryDeleter,
    changes: ChangeLog,
    reason: str | None = None,
) -> SessionEntry:
    """Delete an entry of ``writer``'s session now; the change log keeps what it said."""
    why = check_reason(reason)
    session = session_key(writer)
    deleted = await store.delete(session, entry_id)
    if deleted is None:
        raise NotFoundError(f"no session entry {entry_id!r} in this session", field="id")
    scope = Scope(session.client_id, session.project_id, session.group_id)
    await changes.record(
        Change(
            kind=ItemKind.SESSION_ENTRY,
            item_id=deleted.id,
            item_key=None,
            action=ChangeAction.DELETE,
            scope=scope,
            changed_by=by,
            old=entry_json(deleted),
            reason=why,
            user_key=deleted.user_key,
        )
    )
    return deleted
