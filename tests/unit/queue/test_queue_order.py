"""The queue's order and moves, as properties over arbitrary lanes."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.domain.errors import NotFoundError, ValidationError
from kenning.domain.queue.jobs import Lane, lane_of
from kenning.domain.queue.order import (
    QueueEntry,
    apply_move,
    next_claim,
    order_key,
    plan_move,
    queue_order,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@st.composite
def lanes(draw: st.DrawFn, lane: Lane = Lane.BULK) -> list[QueueEntry]:
    """Queued jobs of one lane: few priorities and positions, so ties are common."""
    low, high = (0, 2) if lane is Lane.PRIORITY else (3, 5)
    size = draw(st.integers(min_value=1, max_value=25))
    return [
        QueueEntry(
            id=f"j{n:02d}",
            priority=draw(st.integers(low, high)),
            queue_position=draw(st.one_of(st.none(), st.integers(1, 6))),
            created_at=T0 + timedelta(seconds=draw(st.integers(0, 5))),
            next_attempt_at=draw(st.one_of(st.none(), st.just(T0 + timedelta(minutes=5)))),
        )
        for n in range(size)
    ]


def ids(entries: list[QueueEntry]) -> list[str]:
    return [e.id for e in entries]


@given(lanes())
def test_order_is_priority_then_explicit_position_then_fifo(lane: list[QueueEntry]) -> None:
    ordered = queue_order(lane)
    for before, after in itertools.pairwise(ordered):
        assert before.priority <= after.priority
        if before.priority == after.priority:
            if before.queue_position is None:
                assert after.queue_position is None  # explicit positions come first
                assert (before.created_at, before.id) <= (after.created_at, after.id)
            elif after.queue_position is not None:
                assert before.queue_position <= after.queue_position


@given(lanes(), st.data())
def test_a_move_lands_at_the_position_and_keeps_everyone_elses_order(
    lane: list[QueueEntry], data: st.DataObject
) -> None:
    job = data.draw(st.sampled_from(lane))
    position = data.draw(st.integers(1, len(lane) + 3))
    move = plan_move(lane, job.id, position)
    after = apply_move(lane, move)
    assert ids(after).index(job.id) == min(position, len(lane)) - 1
    before_others = [i for i in ids(queue_order(lane)) if i != job.id]
    assert [i for i in ids(after) if i != job.id] == before_others
    assert lane_of(move.priority) is lane_of(job.priority)
    # Only the moved job may change priority.
    assert {e.id: e.priority for e in after if e.id != job.id} == {
        e.id: e.priority for e in lane if e.id != job.id
    }


@given(lanes())
def test_front_of_lane_is_position_one(lane: list[QueueEntry]) -> None:
    last = queue_order(lane)[-1]
    after = apply_move(lane, plan_move(lane, last.id, 1))
    assert after[0].id == last.id


@given(lanes(Lane.PRIORITY), lanes(Lane.BULK))
def test_claims_take_the_first_due_job_of_their_lane(
    priority: list[QueueEntry], bulk: list[QueueEntry]
) -> None:
    bulk = [QueueEntry("b" + e.id, e.priority, e.queue_position, e.created_at) for e in bulk]
    everything = priority + bulk
    for lane, own in ((Lane.PRIORITY, priority), (Lane.BULK, bulk)):
        due = [e for e in own if e.next_attempt_at is None]
        expected = min(due, key=order_key) if due else None
        assert next_claim(everything, lane, T0) == expected
    # Once the wait is over, waiting jobs are due again.
    later = T0 + timedelta(hours=1)
    assert next_claim(everything, Lane.PRIORITY, later) == queue_order(priority)[0]


def test_moving_into_a_higher_priority_group_takes_its_priority() -> None:
    lane = [
        QueueEntry("a", 3, None, T0),
        QueueEntry("b", 3, None, T0 + timedelta(seconds=1)),
        QueueEntry("c", 5, None, T0 + timedelta(seconds=2)),
    ]
    move = plan_move(lane, "c", 2)
    assert move.priority == 3
    assert move.positions == {"a": 1, "c": 2}
    assert ids(apply_move(lane, move)) == ["a", "c", "b"]


def test_bad_moves_are_refused() -> None:
    lane = [QueueEntry("a", 3, None, T0)]
    with pytest.raises(ValidationError):
        plan_move(lane, "a", 0)
    with pytest.raises(NotFoundError):
        plan_move(lane, "zz", 1)
