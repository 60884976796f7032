"""``PgProcedureStore``: the domain's ``ProcedureStore`` over the ``procedures`` table.

Every statement filters by ``client_id`` in SQL, so no client reads or counts another's
procedures. Saving the same trigger, source and user again makes the next version of that
procedure (``procedure_versions``) instead of a second one. Similarity is exact (a sequential
cosine scan of one client's procedures, which the ``(client_id, trigger_pattern)`` index
narrows): a client has hundreds of procedures, not millions, and an approximate index
filtered by client could miss some.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg
import numpy as np

from kenning.domain.memory.procedures import (
    MIN_SIMILARITY,
    Procedure,
    ProcedureDraft,
    ProcedureMatch,
    Saved,
)
from kenning.storage.memory.procedure_rows import COLUMNS as _COLUMNS
from kenning.storage.memory.procedure_rows import procedure as _procedure
from kenning.storage.memory.procedure_rows import steps_json
from kenning.storage.memory.procedure_versions import add_version, holder, lock, replace


def candidates_sql() -> str:
    """Exact trigger matches ($2, compared case-insensitively; NULL matches none) and the
    most similar procedures to $3 of at least $4, at most $5 of them, one client's ($1),
    shared or user $6's (NULL: shared only)."""
    return f"""WITH scored AS (
          SELECT {_COLUMNS},
                 $2::text IS NOT NULL AND lower(trigger_pattern) = lower($2::text) AS exact,
                 1 - (embedding <=> $3) AS similarity
          FROM procedures
          WHERE client_id = $1 AND (user_key = '' OR user_key = $6::text))
        SELECT * FROM scored WHERE exact
        UNION
        (SELECT * FROM scored WHERE similarity >= $4 ORDER BY similarity DESC, id LIMIT $5)"""


def _unchanged(current: Procedure, draft: ProcedureDraft) -> bool:
    """Whether saving ``draft`` over ``current`` would change nothing a version holds."""
    held = (current.trigger_pattern, current.description, current.steps, current.agent_id)
    wanted = (draft.trigger_pattern, draft.description, tuple(draft.steps))
    return held[:3] == wanted and draft.owner.agent_id in (None, current.agent_id)


class PgProcedureStore:
    """Implements the domain's ``ProcedureStore``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def save(
        self, client_id: str, draft: ProcedureDraft, embedding: Sequence[float], created_by: str
    ) -> Saved:
        async with self._pool.acquire() as conn, conn.transaction():
            await lock(conn, client_id, draft)
            current = await holder(conn, client_id, draft, "")
            if current is not None:
                if _unchanged(_procedure(current), draft):
                    return Saved(_procedure(current))
                return await replace(conn, current, draft, embedding, created_by)
            row = await conn.fetchrow(
                f"""INSERT INTO procedures (id, client_id, trigger_pattern, description, steps,
                        source, embedding, created_by, user_key, agent_id)
                    VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10) RETURNING {_COLUMNS}""",
                str(uuid.uuid4()),
                client_id,
                draft.trigger_pattern,
                draft.description,
                steps_json(draft.steps),
                draft.source.value,
                np.asarray(embedding, dtype=np.float32),
                created_by,
                draft.owner.stored_user,
                draft.owner.agent_id,
            )
            assert row is not None
            await add_version(conn, row["id"], created_by)
        return Saved(_procedure(row))

    async def candidates(
        self,
        client_id: str,
        trigger: str | None,
        embedding: Sequence[float],
        limit: int,
        user_key: str | None = None,
    ) -> list[ProcedureMatch]:
        rows = await self._pool.fetch(
            candidates_sql(),
            client_id,
            trigger,
            np.asarray(embedding, dtype=np.float32),
            MIN_SIMILARITY,
            limit,
            user_key,
        )
        return [
            ProcedureMatch(
                _procedure(row),
                exact=row["exact"],
                similarity=float(row["similarity"]) if row["similarity"] is not None else None,
            )
            for row in rows
        ]

    async def record_run(
        self, client_id: str, procedure_id: str, success: bool
    ) -> Procedure | None:
        # One UPDATE: its row lock serializes concurrent runs, each adding to the committed
        # counts, so none is lost (a read-then-write would lose them).
        row = await self._pool.fetchrow(
            f"""UPDATE procedures SET usage_count = usage_count + 1,
                    success_count = success_count + $3::int,
                    last_used = now(), updated_at = now()
                WHERE client_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
            client_id,
            procedure_id,
            1 if success else 0,
        )
        return _procedure(row) if row is not None else None
