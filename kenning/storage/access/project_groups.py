"""Projects' groups in PostgreSQL (``project_groups``); the rule is in the domain."""

from __future__ import annotations

import asyncpg

from kenning.domain.access.project_groups import settled
from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.errors import ValidationError

_CURRENT = "SELECT group_id FROM project_groups WHERE client_id = $1 AND project_id = $2"


class PgProjectGroups:
    """``ProjectGroupStore`` over one pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def of_client(self, client_id: str) -> ProjectGroups:
        """Every recorded project of a client, with its group."""
        if not client_id:
            return ProjectGroups()
        rows = await self._pool.fetch(
            "SELECT project_id, group_id FROM project_groups WHERE client_id = $1", client_id
        )
        return ProjectGroups({(client_id, r["project_id"]): r["group_id"] for r in rows})

    async def settle(self, target: Scope, writer: Scope) -> Scope:
        """The scope to write at (see ``settled``); records a project's first group."""
        if not (target.project_id and target.group_id):
            return target
        async with self._pool.acquire() as conn:
            current = await conn.fetchval(_CURRENT, target.client_id, target.project_id)
            scope, record = settled(target, writer, current)
            if not record:
                return scope
            recorded = await conn.fetchval(
                "INSERT INTO project_groups (client_id, project_id, group_id) "
                "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING group_id",
                target.client_id,
                target.project_id,
                target.group_id,
            )
            if recorded is not None:
                return scope
            # Another write recorded a group first: judge this one against it.
            current = await conn.fetchval(_CURRENT, target.client_id, target.project_id)
            return settled(target, writer, current)[0]

    async def move(self, client_id: str, project_id: str, group_id: str) -> str:
        """Put a project in a group (``""``: none); returns the group it was in."""
        if not (client_id and project_id):
            raise ValidationError("a move needs a client and a project", field="projectId")
        Scope(client_id, project_id, group_id)  # the same checks as any scope
        async with self._pool.acquire() as conn, conn.transaction():
            before = await conn.fetchval(_CURRENT + " FOR UPDATE", client_id, project_id)
            # Out of every group is recorded too (""): a key naming the old group must not
            # bring it back, as it would for a project never recorded.
            await conn.execute(
                "INSERT INTO project_groups (client_id, project_id, group_id) "
                "VALUES ($1, $2, $3) ON CONFLICT (client_id, project_id) "
                "DO UPDATE SET group_id = EXCLUDED.group_id, updated_at = now()",
                client_id,
                project_id,
                group_id,
            )
        return str(before or "")
