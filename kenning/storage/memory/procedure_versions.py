"""``PgProcedureVersions``: versions of procedures (``procedure_versions``) beside the current
row in ``procedures``, written in the same transaction as it.

Writers of one identity (client, trigger case-folded, source, user) take turns under an
advisory lock, so two saves of the same trigger make versions n+1 and n+2 of one procedure,
never two procedures. A deleted procedure leaves ``procedures``; its versions stay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import asyncpg
import numpy as np

from kenning.domain.errors import ConflictError
from kenning.domain.memory.procedure_model import (
    Procedure,
    ProcedureDraft,
    ProcedureSource,
    Saved,
)
from kenning.domain.memory.procedure_versions import ProcedureVersion
from kenning.storage.db.pool import Connection
from kenning.storage.memory.procedure_rows import COLUMNS, procedure, steps, steps_json

_VERSION_COLUMNS: Final = (
    "seq, procedure_id, version, trigger_pattern, description, steps::text AS steps, source, "
    "user_key, agent_id, created_by, created_at, superseded_at, deleted_at"
)
# The current row becomes the next version; clock_timestamp, not now(): the transaction may
# have waited for a lock, and a version is never older than the one it supersedes.
_ADD_VERSION: Final = """
    WITH prior AS (
        UPDATE procedure_versions SET superseded_at = clock_timestamp()
        WHERE procedure_id = $1 AND superseded_at IS NULL RETURNING superseded_at)
    INSERT INTO procedure_versions (procedure_id, client_id, version, trigger_pattern,
        description, steps, source, user_key, agent_id, created_by, created_at)
    SELECT id, client_id, version, trigger_pattern, description, steps, source, user_key,
           agent_id, $2, coalesce((SELECT max(superseded_at) FROM prior), clock_timestamp())
    FROM procedures WHERE id = $1"""
_SAME_IDENTITY: Final = f"""
    SELECT {COLUMNS} FROM procedures
    WHERE client_id = $1 AND lower(trigger_pattern) = lower($2) AND source = $3
      AND user_key = $4 AND id <> $5
    ORDER BY updated_at DESC, id LIMIT 1 FOR UPDATE"""
_REPLACE: Final = f"""
    UPDATE procedures SET trigger_pattern = $3, description = $4, steps = $5::jsonb,
        source = $6, embedding = $7, agent_id = coalesce($8, agent_id),
        version = version + 1, updated_at = clock_timestamp()
    WHERE client_id = $1 AND id = $2 RETURNING {COLUMNS}"""


def lock_name(client_id: str, draft: ProcedureDraft) -> str:
    """The advisory lock of a procedure's identity (no part holds the unit separator:
    triggers are normalized text, scopes and user keys are checked)."""
    trigger = draft.trigger_pattern.lower()
    return "\x1f".join(("procedures", client_id, trigger, draft.source, draft.owner.stored_user))


async def lock(conn: Connection, client_id: str, draft: ProcedureDraft) -> None:
    """Hold ``draft``'s identity until the transaction ends."""
    name = lock_name(client_id, draft)
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", name)


async def holder(conn: Connection, client_id: str, draft: ProcedureDraft, other: str) -> Any:
    """The client's procedure (other than ``other``) of ``draft``'s identity, locked."""
    return await conn.fetchrow(
        _SAME_IDENTITY,
        client_id,
        draft.trigger_pattern,
        draft.source.value,
        draft.owner.stored_user,
        other,
    )


async def add_version(conn: Connection, procedure_id: str, created_by: str) -> None:
    """Record the procedure's current row as its newest version."""
    await conn.execute(_ADD_VERSION, procedure_id, created_by)


async def replace(
    conn: Connection,
    current: Any,
    draft: ProcedureDraft,
    embedding: Sequence[float],
    created_by: str,
) -> Saved:
    """Make ``draft`` the next version of the locked procedure row ``current``."""
    row = await conn.fetchrow(
        _REPLACE,
        current["client_id"],
        current["id"],
        draft.trigger_pattern,
        draft.description,
        steps_json(draft.steps),
        draft.source.value,
        np.asarray(embedding, dtype=np.float32),
        draft.owner.agent_id,
    )
    await add_version(conn, current["id"], created_by)
    return Saved(procedure(row), procedure(current))


def _version(row: Any) -> ProcedureVersion:
    return ProcedureVersion(
        seq=row["seq"],
        procedure_id=row["procedure_id"],
        version=row["version"],
        trigger_pattern=row["trigger_pattern"],
        description=row["description"],
        steps=steps(row["steps"]),
        source=ProcedureSource(row["source"]),
        user_key=row["user_key"] or None,
        agent_id=row["agent_id"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        superseded_at=row["superseded_at"],
        deleted_at=row["deleted_at"],
    )


class PgProcedureVersions:
    """Implements the domain's ``ProcedureVersionStore``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get(self, client_id: str, procedure_id: str) -> Procedure | None:
        row = await self._pool.fetchrow(
            f"SELECT {COLUMNS} FROM procedures WHERE client_id = $1 AND id = $2",
            client_id,
            procedure_id,
        )
        return None if row is None else procedure(row)

    async def update(
        self,
        client_id: str,
        procedure_id: str,
        expected: int,
        draft: ProcedureDraft,
        embedding: Sequence[float],
        created_by: str,
    ) -> Saved | None:
        async with self._pool.acquire() as conn, conn.transaction():
            await lock(conn, client_id, draft)
            current = await conn.fetchrow(
                f"SELECT {COLUMNS} FROM procedures WHERE client_id = $1 AND id = $2 FOR UPDATE",
                client_id,
                procedure_id,
            )
            if current is None or current["version"] != expected:
                return None
            if await holder(conn, client_id, draft, procedure_id) is not None:
                raise ConflictError(
                    "another procedure of this client has this trigger, source and user",
                    field="triggerPattern",
                )
            return await replace(conn, current, draft, embedding, created_by)

    async def delete(self, client_id: str, procedure_id: str) -> Procedure | None:
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                f"DELETE FROM procedures WHERE client_id = $1 AND id = $2 RETURNING {COLUMNS}",
                client_id,
                procedure_id,
            )
            await conn.execute(
                """UPDATE procedure_versions SET deleted_at = clock_timestamp()
                   WHERE procedure_id = $1 AND client_id = $2 AND superseded_at IS NULL""",
                procedure_id,
                client_id,
            )
        return None if row is None else procedure(row)

    async def history(
        self, client_id: str, procedure_id: str, first: int, before: int | None
    ) -> list[ProcedureVersion]:
        rows = await self._pool.fetch(
            f"""SELECT {_VERSION_COLUMNS} FROM procedure_versions
                WHERE client_id = $1 AND procedure_id = $2 AND ($3::bigint IS NULL OR seq < $3)
                ORDER BY seq DESC LIMIT $4""",
            client_id,
            procedure_id,
            before,
            first,
        )
        return [_version(row) for row in rows]
