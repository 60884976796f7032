"""Job rows: the columns every job query returns, the row → ``Job`` mapping, page cursors,
and the order of a lane. Jobs are scoped by ``kenning.storage.db.visibility``, as every read."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import asyncpg

from kenning.domain.access.scope import stored_scope
from kenning.domain.errors import ValidationError
from kenning.domain.queue.jobs import Job, JobStage, JobStatus, Lane

JOB_COLUMNS: Final = (
    "id, status, stage, lane, priority, client_id, project_id, group_id, source_urn, "
    "connection_id, source_kind, source_id, content_version, attempts, next_attempt_at, "
    "last_error, version, created_at, updated_at, finished_at, queue_position, "
    "waiting_for_model_since"
)
# The same columns of the row aliased ``j``, for an UPDATE ... FROM that returns them.
J_COLUMNS: Final = ", ".join(f"j.{column.strip()}" for column in JOB_COLUMNS.split(","))
# The claim order; an index on (priority, queue_position, created_at) serves it.
LANE_ORDER: Final = "priority, queue_position NULLS LAST, created_at, id"
# The same order as one comparable row (positions never reach the int4 maximum).
ORDER_ROW: Final = "(priority, coalesce(queue_position, 2147483647), created_at, id)"


def order_row(table: str) -> str:
    """``ORDER_ROW`` of one table alias. Example: ``order_row("q")``."""
    t = f"{table}."
    return f"({t}priority, coalesce({t}queue_position, 2147483647), {t}created_at, {t}id)"


def to_job(row: asyncpg.Record) -> Job:
    """A ``Job`` from a row holding ``JOB_COLUMNS`` (and ``position``, when computed)."""
    return Job(
        id=row["id"],
        status=JobStatus(row["status"]),
        stage=JobStage(row["stage"]) if row["stage"] else None,
        lane=Lane(row["lane"]),
        priority=row["priority"],
        scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
        source_urn=row["source_urn"],
        connection_id=row["connection_id"],
        source_kind=row["source_kind"],
        source_id=row["source_id"],
        content_version=row["content_version"],
        attempts=row["attempts"],
        next_attempt_at=row["next_attempt_at"],
        last_error=row["last_error"],
        version=row["version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        finished_at=row["finished_at"],
        queue_position=row["queue_position"],
        position=row.get("position"),
        waiting_for_model_since=row["waiting_for_model_since"],
    )


_NOT_OURS = "after is not a cursor from this API (pass a page's endCursor)"
_CLAIM = "claim"
_INT4 = re.compile(r"[0-9]{1,10}")
# queue_position NULL sorts last in a lane: the same as ORDER_ROW's coalesce.
NO_POSITION: Final = 2147483647


@dataclass(frozen=True, slots=True)
class ClaimCursor:
    """Where a claim-order page stopped: the last job's ``ORDER_ROW``."""

    priority: int
    queue_position: int
    created_at: datetime
    job_id: str


def _encode(*parts: str) -> str:
    return base64.urlsafe_b64encode("|".join(parts).encode()).decode().rstrip("=")


def _decode(cursor: str) -> list[str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return base64.urlsafe_b64decode(padded).decode().split("|")
    except (ValueError, binascii.Error, UnicodeDecodeError) as error:
        raise ValidationError(_NOT_OURS, field="after") from error


def _stamp(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError as error:
        raise ValidationError(_NOT_OURS, field="after") from error
    if when.tzinfo is None:
        raise ValidationError(_NOT_OURS, field="after")
    return when


def encode_cursor(created_at: datetime, job_id: str) -> str:
    """An opaque cursor after the job (newest-first order)."""
    return _encode(created_at.isoformat(), job_id)


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The position a newest-first cursor names; ``ValidationError`` when it is not one."""
    parts = _decode(cursor)
    if parts[0] == _CLAIM:
        raise ValidationError("after is a cursor of the CLAIM_ORDER order", field="after")
    if len(parts) != 2 or not parts[1]:
        raise ValidationError(_NOT_OURS, field="after")
    return _stamp(parts[0]), parts[1]


def encode_claim_cursor(job: Job) -> str:
    """An opaque cursor after the job in claim order."""
    position = job.queue_position if job.queue_position is not None else NO_POSITION
    return _encode(_CLAIM, str(job.priority), str(position), job.created_at.isoformat(), job.id)


def decode_claim_cursor(cursor: str) -> ClaimCursor:
    """The position a claim-order cursor names; ``ValidationError`` when it is not one."""
    parts = _decode(cursor)
    if parts[0] != _CLAIM:
        if len(parts) == 2:
            raise ValidationError("after is a cursor of the NEWEST order", field="after")
        raise ValidationError(_NOT_OURS, field="after")
    if len(parts) != 5 or not parts[4] or not all(_INT4.fullmatch(p) for p in parts[1:3]):
        raise ValidationError(_NOT_OURS, field="after")
    priority, position = int(parts[1]), int(parts[2])
    if max(priority, position) > NO_POSITION:
        raise ValidationError(_NOT_OURS, field="after")
    return ClaimCursor(priority, position, _stamp(parts[3]), parts[4])
