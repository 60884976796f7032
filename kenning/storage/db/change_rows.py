"""Rows of the ``changes`` audit trail: one written in a writer's own transaction (so an item
and the record of its change commit together) and one read back as a ``RecordedChange``.

Here in the kernel because every feature that changes a remembered item writes one: memory
(``storage/memory/changes.py`` also reads them) and the graph (a node corrected, an edge
retracted).
"""

from __future__ import annotations

import json
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import stored_scope
from kenning.domain.memory.changes import Change, ChangeAction, ItemKind, RecordedChange
from kenning.storage.db.pool import Connection

COLUMNS: Final = (
    "seq, client_id, project_id, group_id, user_key, item_kind, item_id, item_key, action, "
    "old::text AS old, new::text AS new, reason, changed_by, changed_at"
)
_INSERT: Final = f"""
    INSERT INTO changes (client_id, project_id, group_id, user_key, item_kind, item_id,
        item_key, action, old, new, reason, changed_by, changed_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, clock_timestamp())
    RETURNING {COLUMNS}"""


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
