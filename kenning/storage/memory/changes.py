"""``PgChangeLog``: the ``changes`` audit trail, read with the visibility of the item each
change is about: a session entry's by its session (as ``sessionMemory`` reads it), every
other item's by the scope rule of chunks; a user's items for that user only."""

from __future__ import annotations

import json
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.memory.changes import (
    Change,
    ChangeAction,
    ChangeFilter,
    ItemKind,
    RecordedChange,
)
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params, visible_rows

_COLUMNS: Final = (
    "seq, client_id, project_id, group_id, user_key, item_kind, item_id, item_key, action, "
    "old::text AS old, new::text AS new, reason, changed_by, changed_at"
)
_INSERT: Final = f"""
    INSERT INTO changes (client_id, project_id, group_id, user_key, item_kind, item_id,
        item_key, action, old, new, reason, changed_by, changed_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, clock_timestamp())
    RETURNING {_COLUMNS}"""


def page_sql() -> str:
    """Reader scope in ``$1..$3``, its session's group in ``$4``, the user in ``$5``, the
    key and item id in ``$6``/``$7``, the seq to stay below in ``$8``, the limit in ``$9``."""
    return f"""SELECT {_COLUMNS} FROM changes
        WHERE CASE WHEN item_kind = '{ItemKind.SESSION_ENTRY.value}'
                   THEN $1 <> '' AND client_id = $1 AND project_id = $2 AND group_id = $4
                   ELSE {visible_rows(1)} END
          AND (user_key = '' OR user_key = $5::text)
          AND ($6::text IS NULL OR item_key = $6::text)
          AND ($7::text IS NULL OR item_id = $7::text)
          AND ($8::bigint IS NULL OR seq < $8::bigint)
        ORDER BY seq DESC LIMIT $9"""


_PAGE: Final = page_sql()


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


def recorded(row: Any) -> RecordedChange:
    """A ``RecordedChange`` from a row of ``changes``."""
    change = Change(
        kind=ItemKind(row["item_kind"]),
        item_id=row["item_id"],
        item_key=row["item_key"],
        action=ChangeAction(row["action"]),
        scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
        changed_by=row["changed_by"],
        old=None if row["old"] is None else json.loads(row["old"]),
        new=None if row["new"] is None else json.loads(row["new"]),
        reason=row["reason"],
        user_key=row["user_key"] or None,
    )
    return RecordedChange(row["seq"], change, row["changed_at"])


async def insert_change(conn: Connection | asyncpg.Pool, change: Change) -> RecordedChange:
    """Write ``change`` with ``conn``: a store's own transaction, so the item and its audit
    commit together."""
    s = change.scope
    row = await conn.fetchrow(
        _INSERT,
        s.client_id,
        s.project_id,
        s.group_id,
        change.user_key or "",
        change.kind.value,
        change.item_id,
        change.item_key,
        change.action.value,
        _json(change.old),
        _json(change.new),
        change.reason,
        change.changed_by,
    )
    assert row is not None
    return recorded(row)


class PgChangeLog:
    """Implements the domain's ``ChangeLog`` over one pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def record(self, change: Change) -> RecordedChange:
        return await insert_change(self._pool, change)

    async def page(
        self, reader: Scope, wanted: ChangeFilter, first: int, before: int | None
    ) -> list[RecordedChange]:
        session_group = "" if reader.project_id else reader.group_id
        rows = await self._pool.fetch(
            _PAGE,
            *reader_params(reader),
            session_group,
            wanted.user_key,
            wanted.item_key,
            wanted.item_id,
            before,
            first,
        )
        return [recorded(row) for row in rows]
