"""``PgChangeLog``: the ``changes`` audit trail, read with the visibility of the item each
change is about: a session entry's by its session (as ``sessionMemory`` reads it), every
other item's (a node's and an edge's too) by the scope rule of chunks; a user's items for
that user only. The rows themselves are written and read by ``storage/db/change_rows.py``."""

from __future__ import annotations

from typing import Final

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.memory.changes import Change, ChangeFilter, ItemKind, RecordedChange
from kenning.storage.db.change_rows import COLUMNS, insert_change, recorded
from kenning.storage.db.visibility import reader_params, visible_rows


def page_sql() -> str:
    """Reader scope in ``$1..$3``, its session's group in ``$4``, the user in ``$5``, the
    key and item id in ``$6``/``$7``, the seq to stay below in ``$8``, the limit in ``$9``."""
    return f"""SELECT {COLUMNS} FROM changes
        WHERE CASE WHEN item_kind = '{ItemKind.SESSION_ENTRY.value}'
                   THEN $1 <> '' AND client_id = $1 AND project_id = $2 AND group_id = $4
                   ELSE {visible_rows(1)} END
          AND (user_key = '' OR user_key = $5::text)
          AND ($6::text IS NULL OR item_key = $6::text)
          AND ($7::text IS NULL OR item_id = $7::text)
          AND ($8::bigint IS NULL OR seq < $8::bigint)
        ORDER BY seq DESC LIMIT $9"""


_PAGE: Final = page_sql()


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
