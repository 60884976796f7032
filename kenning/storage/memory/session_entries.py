"""``PgSessionStore``: session entries in PostgreSQL (``session_entries``), capped per client
and project under an advisory lock, so racing appends never leave more than the cap."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from typing import Any, Final

import asyncpg

from kenning.domain.memory.session import (
    NewSessionEntry,
    SessionEntry,
    SessionKey,
    SessionSource,
)

_COLUMNS: Final = (
    "id, client_id, project_id, group_id, source, summary, details::text AS details, task_id, "
    "promoted, created_by, created_at, expires_at, user_key, agent_id"
)
# The first key of the two-key advisory lock: this table's sessions (the second is the session).
_LOCK_CLASS: Final = 0x5E55
# Expired rows deleted per prune, so one append never deletes without bound.
PRUNE_BATCH: Final = 500


def _entry(row: Any) -> SessionEntry:
    return SessionEntry(
        id=row["id"],
        client_id=row["client_id"],
        project_id=row["project_id"],
        group_id=row["group_id"],
        source=SessionSource(row["source"]),
        summary=row["summary"],
        details=json.loads(row["details"]),
        task_id=row["task_id"],
        promoted=row["promoted"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        user_key=row["user_key"] or None,
        agent_id=row["agent_id"],
    )


class PgSessionStore:
    """Implements the domain's ``SessionStore``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def append(self, entry: NewSessionEntry, ttl: timedelta, keep: int) -> SessionEntry:
        async with self._pool.acquire() as conn, conn.transaction():
            # One append per session at a time: the trim below then counts every committed
            # entry, and clock_timestamp() taken under the lock orders them as appended (read
            # once, so an entry lives exactly the TTL).
            await conn.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2 || chr(31) || $3 || chr(31) || $4))",
                _LOCK_CLASS,
                entry.client_id,
                entry.project_id,
                entry.group_id,
            )
            row = await conn.fetchrow(
                f"""INSERT INTO session_entries (id, client_id, project_id, group_id, source,
                        summary, details, task_id, promoted, created_by, created_at, expires_at,
                        user_key, agent_id)
                    SELECT $1, $2, $3, $11, $4, $5, $6::jsonb, $7, $8, $9, at, at + $10::interval,
                           $12, $13
                    FROM (SELECT clock_timestamp() AS at) AS now_
                    RETURNING {_COLUMNS}""",
                str(uuid.uuid4()),
                entry.client_id,
                entry.project_id,
                entry.source.value,
                entry.summary,
                json.dumps(entry.details, sort_keys=True),
                entry.task_id,
                entry.promoted,
                entry.created_by,
                ttl,
                entry.group_id,
                entry.owner.stored_user,
                entry.owner.agent_id,
            )
            await conn.execute(
                """DELETE FROM session_entries WHERE client_id = $1 AND project_id = $2
                   AND group_id = $3 AND expires_at <= clock_timestamp()""",
                entry.client_id,
                entry.project_id,
                entry.group_id,
            )
            await conn.execute(
                """DELETE FROM session_entries WHERE id IN (
                       SELECT id FROM session_entries WHERE client_id = $1 AND project_id = $2
                       AND group_id = $3 ORDER BY created_at DESC, id DESC OFFSET $4)""",
                entry.client_id,
                entry.project_id,
                entry.group_id,
                keep,
            )
        assert row is not None
        return _entry(row)

    async def recent(
        self, session: SessionKey, limit: int, user_key: str | None = None
    ) -> list[SessionEntry]:
        rows = await self._pool.fetch(
            f"""SELECT {_COLUMNS} FROM session_entries
                WHERE client_id = $1 AND project_id = $2 AND group_id = $3
                  AND expires_at > clock_timestamp()
                  AND (user_key = '' OR user_key = $5::text)
                ORDER BY created_at DESC, id DESC LIMIT $4""",
            session.client_id,
            session.project_id,
            session.group_id,
            limit,
            user_key,
        )
        return [_entry(r) for r in rows]

    async def delete(self, session: SessionKey, entry_id: str) -> SessionEntry | None:
        row = await self._pool.fetchrow(
            f"""DELETE FROM session_entries
                WHERE client_id = $1 AND project_id = $2 AND group_id = $3 AND id = $4
                  AND expires_at > clock_timestamp()
                RETURNING {_COLUMNS}""",
            session.client_id,
            session.project_id,
            session.group_id,
            entry_id,
        )
        return None if row is None else _entry(row)

    async def prune_expired(self) -> int:
        deleted = await self._pool.fetch(
            """DELETE FROM session_entries WHERE id IN (
                   SELECT id FROM session_entries WHERE expires_at <= clock_timestamp()
                   LIMIT $1) RETURNING id""",
            PRUNE_BATCH,
        )
        return len(deleted)
