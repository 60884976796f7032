"""``PgCheckIns``: the domain's ``CheckInStore`` over the ``check_ins`` table.

Reads go through the scope predicate of ``kenning.storage.db.visibility`` like every read;
pages are newest first by ``(created_at, id)``, the cursor an opaque base64 of that pair.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.extraction.check_ins import (
    MAX_PAGE,
    CheckIn,
    CheckInPage,
    CheckInStatus,
    NewCheckIn,
)
from kenning.domain.models.ports import Attempt
from kenning.storage.db.visibility import reader_params, visible_rows

_COLUMNS: Final = (
    "id, client_id, project_id, group_id, caller, status, source_urn, input_text, "
    "input_hash, hints, output, model, prompt_version, attempts, duration_ms, created_at"
)
INSERT: Final = f"""
    INSERT INTO check_ins (id, client_id, project_id, group_id, caller, status, source_urn,
        input_text, input_hash, hints, output, model, prompt_version, attempts, duration_ms)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14::jsonb, $15)
    RETURNING {_COLUMNS}"""
PAGE: Final = f"""
    SELECT {_COLUMNS} FROM check_ins c
    WHERE {visible_rows(1, "c")}
      AND ($4::timestamptz IS NULL OR (c.created_at, c.id) < ($4, $5::text))
    ORDER BY c.created_at DESC, c.id DESC LIMIT $6"""
_NOT_OURS: Final = "after is not a cursor of checkIns (pass a page's endCursor)"


def encode_cursor(created_at: datetime, check_in_id: str) -> str:
    """An opaque cursor after the check-in (newest-first order)."""
    text = f"{created_at.isoformat()}|{check_in_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The position ``cursor`` names; ``ValidationError`` (field ``after``) when it is not one."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, check_in_id = text.split("|")
        when = datetime.fromisoformat(stamp)
    except (ValueError, binascii.Error, UnicodeDecodeError) as error:
        raise ValidationError(_NOT_OURS, field="after") from error
    if when.tzinfo is None or not check_in_id:
        raise ValidationError(_NOT_OURS, field="after")
    return when, check_in_id


def _attempts_json(attempts: tuple[Attempt, ...]) -> str:
    return json.dumps(
        [{"number": a.number, "durationMs": a.duration_ms, "error": a.error} for a in attempts]
    )


def _attempts(text: str) -> tuple[Attempt, ...]:
    items: list[dict[str, Any]] = json.loads(text)
    return tuple(Attempt(i["number"], i["durationMs"], i.get("error")) for i in items)


def _check_in(row: asyncpg.Record) -> CheckIn:
    output = row["output"]
    record = NewCheckIn(
        id=row["id"],
        scope=Scope(row["client_id"], row["project_id"], row["group_id"]),
        caller=row["caller"],
        status=CheckInStatus(row["status"]),
        input_text=row["input_text"],
        input_hash=row["input_hash"],
        hints=row["hints"],
        output=None if output is None else json.loads(output),
        model=row["model"],
        prompt_version=row["prompt_version"],
        attempts=_attempts(row["attempts"]),
        duration_ms=row["duration_ms"],
        source_urn=row["source_urn"],
    )
    return CheckIn(record, row["created_at"])


class PgCheckIns:
    """Implements the domain's ``CheckInStore``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def add(self, check_in: NewCheckIn) -> CheckIn:
        c, scope = check_in, check_in.scope
        row = await self._pool.fetchrow(
            INSERT,
            c.id,
            scope.client_id,
            scope.project_id,
            scope.group_id,
            c.caller,
            c.status.value,
            c.source_urn,
            c.input_text,
            c.input_hash,
            c.hints,
            None if c.output is None else json.dumps(c.output),
            c.model,
            c.prompt_version,
            _attempts_json(c.attempts),
            c.duration_ms,
        )
        assert row is not None
        return _check_in(row)

    async def page(self, reader: Scope, first: int, after: str | None) -> CheckInPage:
        first = max(1, min(first, MAX_PAGE))
        stamp, last_id = decode_cursor(after) if after else (None, None)
        rows = await self._pool.fetch(PAGE, *reader_params(reader), stamp, last_id, first + 1)
        found = tuple(_check_in(row) for row in rows[:first])
        end = encode_cursor(found[-1].created_at, found[-1].id) if found else None
        return CheckInPage(found, end, len(rows) > first)
