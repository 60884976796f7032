"""``PgProcedureStore``: the domain's ``ProcedureStore`` over the ``procedures`` table.

Every statement filters by ``client_id`` in SQL, so no client reads or counts another's
procedures. Similarity is exact (a sequential cosine scan of one client's procedures, which
the ``(client_id, trigger_pattern)`` index narrows): a client has hundreds of procedures, not
millions, and an approximate index filtered by client could miss some.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any, Final

import asyncpg
import numpy as np

from kenning.domain.memory.procedures import (
    MIN_SIMILARITY,
    Procedure,
    ProcedureDraft,
    ProcedureMatch,
    ProcedureSource,
    ProcedureStep,
)

_COLUMNS: Final = (
    "id, client_id, trigger_pattern, description, steps, source, usage_count, success_count, "
    "last_used, created_by, created_at, updated_at"
)


def _steps(raw: str) -> tuple[ProcedureStep, ...]:
    return tuple(
        ProcedureStep(agent=s["agent"], action=s["action"], parameters=s["parameters"])
        for s in json.loads(raw)
    )


def _procedure(row: Any) -> Procedure:
    return Procedure(
        id=row["id"],
        client_id=row["client_id"],
        trigger_pattern=row["trigger_pattern"],
        description=row["description"],
        steps=_steps(row["steps"]),
        source=ProcedureSource(row["source"]),
        usage_count=row["usage_count"],
        success_count=row["success_count"],
        last_used=row["last_used"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def steps_json(steps: Sequence[ProcedureStep]) -> str:
    """The ``steps`` column's JSON: ``[{"agent", "action", "parameters"}, ...]``."""
    return json.dumps(
        [{"agent": s.agent, "action": s.action, "parameters": dict(s.parameters)} for s in steps]
    )


def candidates_sql() -> str:
    """Exact trigger matches ($2, compared case-insensitively; NULL matches none) and the
    most similar procedures to $3 of at least $4, at most $5 of them, one client's ($1)."""
    return f"""WITH scored AS (
          SELECT {_COLUMNS},
                 $2::text IS NOT NULL AND lower(trigger_pattern) = lower($2::text) AS exact,
                 1 - (embedding <=> $3) AS similarity
          FROM procedures WHERE client_id = $1)
        SELECT * FROM scored WHERE exact
        UNION
        (SELECT * FROM scored WHERE similarity >= $4 ORDER BY similarity DESC, id LIMIT $5)"""


class PgProcedureStore:
    """Implements the domain's ``ProcedureStore``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def save(
        self, client_id: str, draft: ProcedureDraft, embedding: Sequence[float], created_by: str
    ) -> Procedure:
        row = await self._pool.fetchrow(
            f"""INSERT INTO procedures (id, client_id, trigger_pattern, description, steps,
                    source, embedding, created_by)
                VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8) RETURNING {_COLUMNS}""",
            str(uuid.uuid4()), client_id, draft.trigger_pattern, draft.description,
            steps_json(draft.steps), draft.source.value,
            np.asarray(embedding, dtype=np.float32), created_by,
        )  # fmt: skip
        assert row is not None
        return _procedure(row)

    async def candidates(
        self, client_id: str, trigger: str | None, embedding: Sequence[float], limit: int
    ) -> list[ProcedureMatch]:
        rows = await self._pool.fetch(
            candidates_sql(),
            client_id,
            trigger,
            np.asarray(embedding, dtype=np.float32),
            MIN_SIMILARITY,
            limit,
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
