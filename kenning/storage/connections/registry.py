"""``PgConnectionRegistry``: source connections and their sync cursors in PostgreSQL.

Cursors live in ``connections.sync_cursors`` as ``{name: {"value": ..., "updatedAt": ...}}``.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.errors import NotFoundError
from kenning.domain.ingestion.source_connections import (
    ConnectionSpec,
    ConnectionStatus,
    SourceConnection,
    SyncCursor,
    sorted_cursors,
)
from kenning.storage.db.visibility import visible_rows

_COLUMNS: Final = (
    "client_id, connection_id, project_id, group_id, authority, label, status, "
    "allowed_source_kinds, sync_cursors, root, owner, revoke_reason, revoked_at, "
    "created_at, updated_at"
)
MAX_LIST: Final = 500


def _connection(row: Any) -> SourceConnection:
    cursors = json.loads(row["sync_cursors"]) if row["sync_cursors"] else {}
    return SourceConnection(
        spec=ConnectionSpec(
            connection_id=row["connection_id"],
            authority=row["authority"],
            label=row["label"],
            scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
            allowed_source_kinds=tuple(row["allowed_source_kinds"]),
            root=row["root"],
            owner=row["owner"],
        ),
        status=ConnectionStatus(row["status"]),
        cursors=sorted_cursors(
            [
                SyncCursor(name, str(c["value"]), datetime.fromisoformat(c["updatedAt"]))
                for name, c in cursors.items()
            ]
        ),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        revoked_at=row["revoked_at"],
        revoke_reason=row["revoke_reason"],
    )


class PgConnectionRegistry:
    """Implements the domain's ``ConnectionRegistry``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get(self, client_id: str, connection_id: str) -> SourceConnection | None:
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM connections WHERE client_id = $1 AND connection_id = $2",
            client_id,
            connection_id,
        )
        return _connection(row) if row is not None else None

    async def visible(self, reader: Scope, first: int) -> list[SourceConnection]:
        rows = await self._pool.fetch(
            f"""SELECT {_COLUMNS} FROM connections WHERE {visible_rows(1)}
                ORDER BY created_at DESC, connection_id LIMIT $4""",
            reader.client_id,
            reader.project_id,
            reader.group_id,
            max(1, min(first, MAX_LIST)),
        )
        return [_connection(r) for r in rows]

    async def register(self, spec: ConnectionSpec) -> SourceConnection:
        scope = spec.scope
        row = await self._pool.fetchrow(
            f"""INSERT INTO connections (client_id, connection_id, project_id, group_id,
                    authority, label, status, allowed_source_kinds, root, owner)
                VALUES ($1, $2, $3, $4, $5, $6, 'ACTIVE', $7, $8, $9)
                ON CONFLICT (client_id, connection_id) DO UPDATE SET
                    project_id = EXCLUDED.project_id, group_id = EXCLUDED.group_id,
                    authority = EXCLUDED.authority, label = EXCLUDED.label,
                    allowed_source_kinds = EXCLUDED.allowed_source_kinds,
                    root = EXCLUDED.root, owner = EXCLUDED.owner, updated_at = now()
                WHERE connections.status = 'ACTIVE'
                RETURNING {_COLUMNS}""",
            scope.client_id,
            spec.connection_id,
            scope.project_id,
            scope.group_id,
            spec.authority,
            spec.label,
            list(spec.allowed_source_kinds),
            spec.root,
            spec.owner,
        )
        if row is None:  # it exists and is revoked: left as it is
            found = await self.get(scope.client_id, spec.connection_id)
            assert found is not None
            return found
        return _connection(row)

    async def set_cursor(
        self, client_id: str, connection_id: str, name: str, value: str
    ) -> SyncCursor | None:
        row = await self._pool.fetchrow(
            """UPDATE connections SET sync_cursors = jsonb_set(sync_cursors, ARRAY[$3::text],
                   jsonb_build_object('value', $4::text, 'updatedAt', now())),
                   updated_at = now()
               WHERE client_id = $1 AND connection_id = $2 AND status = 'ACTIVE'
               RETURNING now() AS at""",
            client_id,
            connection_id,
            name,
            value,
        )
        return SyncCursor(name, value, row["at"]) if row is not None else None

    async def revoke(self, client_id: str, connection_id: str, reason: str) -> SourceConnection:
        row = await self._pool.fetchrow(
            f"""UPDATE connections SET status = 'REVOKED',
                    revoke_reason = coalesce(revoke_reason, $3),
                    revoked_at = coalesce(revoked_at, now()), updated_at = now()
                WHERE client_id = $1 AND connection_id = $2 RETURNING {_COLUMNS}""",
            client_id,
            connection_id,
            reason,
        )
        if row is None:
            raise NotFoundError(f"no connection {connection_id!r}", field="connectionId")
        return _connection(row)

    async def source_scopes(self, client_id: str, connection_id: str) -> list[Scope]:
        rows = await self._pool.fetch(
            """SELECT DISTINCT client_id, project_id, group_id FROM sources
               WHERE client_id = $1 AND connection_id = $2
               ORDER BY client_id, project_id, group_id""",
            client_id,
            connection_id,
        )
        return [stored_scope(r["client_id"], r["project_id"], r["group_id"]) for r in rows]
