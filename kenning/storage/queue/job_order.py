"""Moving a queued job to another place in its lane's order (``PgJobQueue.move``).

`move_queued_job` locks the lane's moves, checks the job is still queued, plans the move in
the domain (`kenning.domain.queue.order.plan_move`), locks the rows it writes in the queue's
one lock order (created_at, id) and writes the new priorities and positions, all in one
transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from kenning.domain.errors import NotFoundError
from kenning.domain.queue.jobs import JobStateError, JobStatus, Lane, lane_bounds
from kenning.domain.queue.order import QueueEntry, plan_move
from kenning.storage.db.pool import Connection
from kenning.storage.queue.job_rows import JOB_COLUMNS, LANE_ORDER

MAX_LANE_SCAN: Final = 100_000


async def move_queued_job(conn: Connection, job_id: str, position: int) -> Any:
    """Put a queued job at ``position`` (1-based) of its lane; returns its updated row."""
    async with conn.transaction():
        lane = await conn.fetchval("SELECT lane FROM ingestion_jobs WHERE id = $1", job_id)
        if lane is None:
            raise NotFoundError(f"no job {job_id}", field="jobId")
        # Moves of one lane run one at a time, each seeing the previous one's order;
        # taken before any row lock, so two moves cannot deadlock.
        await conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('kenning.queue.move.' || $1::text, 0))",
            lane,
        )
        current = await conn.fetchval("SELECT status FROM ingestion_jobs WHERE id = $1", job_id)
        if current != JobStatus.QUEUED:
            raise JobStateError(f"job {job_id} is {current}", JobStatus(current))
        return await _apply_move(conn, Lane(lane), job_id, position)


async def _apply_move(conn: Connection, lane: Lane, job_id: str, position: int) -> Any:
    low, high = lane_bounds(lane)
    rows = await conn.fetch(
        f"""SELECT id, priority, queue_position, created_at FROM ingestion_jobs
            WHERE status = 'QUEUED' AND priority BETWEEN $1 AND $2
            ORDER BY {LANE_ORDER} LIMIT {MAX_LANE_SCAN}""",
        low,
        high,
    )
    entries = [
        QueueEntry(r["id"], r["priority"], r["queue_position"], r["created_at"]) for r in rows
    ]
    move = plan_move(entries, job_id, position)
    # Every row the move writes is locked at once in the order the other writers of many
    # jobs lock theirs (created_at, id: ``CANCEL_MATCHING``); locking the moved job first
    # and the jobs around it later deadlocked with a cancel that held one of them.
    locked = await conn.fetch(
        "SELECT id, status FROM ingestion_jobs WHERE id = ANY($1::text[]) "
        "ORDER BY created_at, id FOR UPDATE",
        list(move.positions),
    )
    current = next((r["status"] for r in locked if r["id"] == job_id), None)
    if current is None:  # deleted since it was read
        raise NotFoundError(f"no job {job_id}", field="jobId")
    if current != JobStatus.QUEUED:  # claimed or cancelled since it was read
        raise JobStateError(f"job {job_id} is {current}", JobStatus(current))
    others = [(jid, pos) for jid, pos in move.positions.items() if jid != job_id]
    await _renumber(conn, others)
    return await conn.fetchrow(
        f"""UPDATE ingestion_jobs SET priority = $2, queue_position = $3,
            version = version + 1, updated_at = clock_timestamp()
            WHERE id = $1 RETURNING {JOB_COLUMNS}""",
        job_id,
        move.priority,
        move.positions[job_id],
    )


async def _renumber(conn: Connection, positions: Sequence[tuple[str, int]]) -> None:
    if not positions:
        return
    await conn.execute(
        """UPDATE ingestion_jobs j SET queue_position = m.position
           FROM unnest($1::text[], $2::int[]) AS m(id, position)
           WHERE j.id = m.id AND j.status = 'QUEUED'""",
        [jid for jid, _ in positions],
        [pos for _, pos in positions],
    )
