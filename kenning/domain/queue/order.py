"""The queue's order, and how moving one job re-numbers the others (pure).

A lane is claimed in the order ``priority ASC, queue_position ASC NULLS LAST, created_at
ASC`` (id breaks exact ties), skipping jobs whose next attempt lies in the future. An
explicit ``queue_position`` only orders jobs within one priority; moving a job across a
priority boundary therefore takes the priority of the jobs it lands among.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.queue.jobs import Lane, lane_of


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """What ordering needs to know about a queued job."""

    id: str
    priority: int
    queue_position: int | None
    created_at: datetime
    next_attempt_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Move:
    """A job's new priority, and the explicit positions to store (the moved job's too)."""

    job_id: str
    priority: int
    positions: dict[str, int]


def order_key(entry: QueueEntry) -> tuple[int, bool, int, datetime, str]:
    """Sort key of the claim order. Example: ``sorted(entries, key=order_key)``."""
    explicit = entry.queue_position is not None
    return (entry.priority, not explicit, entry.queue_position or 0, entry.created_at, entry.id)


def queue_order(entries: Iterable[QueueEntry]) -> list[QueueEntry]:
    """Entries in the order workers claim them."""
    return sorted(entries, key=order_key)


def next_claim(entries: Iterable[QueueEntry], lane: Lane, now: datetime) -> QueueEntry | None:
    """The job a worker of ``lane`` claims next at ``now``, if any is due."""
    due = (
        e
        for e in entries
        if lane_of(e.priority) is lane and (e.next_attempt_at is None or e.next_attempt_at <= now)
    )
    return min(due, key=order_key, default=None)


def plan_move(lane: Sequence[QueueEntry], job_id: str, position: int) -> Move:
    """Move ``job_id`` to 1-based ``position`` among the queued jobs of its lane.

    Positions past the end mean last. Everyone else keeps their relative order; only the
    jobs that need an explicit position to stay ahead of the moved one get one.
    Example: in ``[a, b, c]``, ``plan_move(.., "c", 1)`` orders ``[c, a, b]``.
    """
    if position < 1:
        raise ValidationError("position must be 1 or more", field="position")
    ordered = queue_order(lane)
    job = next((e for e in ordered if e.id == job_id), None)
    if job is None:
        raise NotFoundError(f"job {job_id} is not queued", field="jobId")
    others = [e for e in ordered if e.id != job_id]
    index = min(position - 1, len(others))
    priority = job.priority
    if index > 0:
        priority = max(priority, others[index - 1].priority)
    if index < len(others):
        priority = min(priority, others[index].priority)
    group = [e for e in others if e.priority == priority]
    ahead = sum(1 for e in others[:index] if e.priority == priority)
    explicit = sum(1 for e in group if e.queue_position is not None)
    prefix = [e.id for e in group[: max(ahead, explicit)]]
    renumbered = [*prefix[:ahead], job_id, *prefix[ahead:]]
    return Move(job_id, priority, {jid: n for n, jid in enumerate(renumbered, start=1)})


def apply_move(lane: Sequence[QueueEntry], move: Move) -> list[QueueEntry]:
    """The lane after ``move``, in claim order (what storage will hold)."""
    moved = []
    for entry in lane:
        priority = move.priority if entry.id == move.job_id else entry.priority
        position = move.positions.get(entry.id, entry.queue_position)
        moved.append(
            QueueEntry(entry.id, priority, position, entry.created_at, entry.next_attempt_at)
        )
    return queue_order(moved)
