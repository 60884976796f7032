"""Facts over time: when each edge of a (from, relation) group was valid, computed from
what its evidence says and when, and from explicit endings.

**Two times.** Valid time is when the world was so: an assertion's ``observed_at`` (when its
source says it was true; ingestion time unless the writer or the source said otherwise).
Record time is when Kenning learned it: the chunk's creation. An interval is valid over
``[valid_from, valid_to)`` and was recorded at ``recorded_at``; an ended one was ended at
record time ``ended_at``, for ``ended_reason``, by ``ended_by`` (a source URN, a key id, or
``llm:<model>``).

**The timeline is a pure function** of the group's assertions (one per evidence chunk), its
explicit endings (a retraction, a superseded source, a contradiction a model found) and the
relation's cardinality. Events are taken oldest first by (valid time, record time), an
assertion before an ending at the same instant, then by target:

- an assertion of ``X`` opens an interval for ``X`` unless one is open; for a relation of
  cardinality ``ONE`` it first ends every other open target, ``SUPERSEDED`` by the
  assertion's source, at the assertion's valid time;
- an ending of ``X`` ends ``X``'s open interval, if any, at the ending's valid time.

So a backfill (an older assertion that arrives later) lands already ended, purging the
newer source re-opens the older edge (its assertions are gone, the timeline recomputed),
and asserting a retracted fact again with a later valid time opens a new interval. An
interval's ``ended_at`` is never before its own ``recorded_at``: an interval Kenning learned
of only after it had ended was "stored already ended".

Example::

    timeline([Assertion("db:mysql", t1, t1, "doc:a"), Assertion("db:pg", t2, t2, "doc:b")],
             [], Cardinality.ONE)
    # [Interval("db:mysql", t1, t2, ..., SUPERSEDED, "doc:b"), Interval("db:pg", t2, None, ...)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from kenning.domain.errors import ValidationError

# An observedAt this far past the server's clock is a mistake, not a forecast.
FUTURE_SLACK = timedelta(days=1)
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)


class Cardinality(StrEnum):
    """How many targets a relation holds at one time, from one node."""

    ONE = "ONE"
    MANY = "MANY"


class EndReason(StrEnum):
    """Why an edge stopped being valid."""

    SUPERSEDED = "SUPERSEDED"
    RETRACTED = "RETRACTED"
    CONTRADICTED = "CONTRADICTED"
    ERASED = "ERASED"


@dataclass(frozen=True, slots=True)
class Assertion:
    """One evidence chunk saying (from, relation, ``to_key``)."""

    to_key: str
    observed_at: datetime
    recorded_at: datetime
    source: str


@dataclass(frozen=True, slots=True)
class Ending:
    """An explicit end of (from, relation, ``to_key``) at valid time ``valid_at``."""

    to_key: str
    valid_at: datetime
    reason: EndReason
    ended_by: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Interval:
    """(from, relation, ``to_key``) held over ``[valid_from, valid_to)``; ``valid_to`` is
    None while it holds."""

    to_key: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    ended_at: datetime | None = None
    ended_reason: EndReason | None = None
    ended_by: str | None = None

    @property
    def current(self) -> bool:
        return self.valid_to is None

    def holds_at(self, when: datetime) -> bool:
        """Whether the fact was valid at ``when``."""
        return self.valid_from <= when and (self.valid_to is None or when < self.valid_to)


@dataclass(slots=True)
class _Open:
    valid_from: datetime
    recorded_at: datetime


def timeline(
    assertions: Iterable[Assertion], endings: Iterable[Ending], cardinality: Cardinality
) -> list[Interval]:
    """Every interval of the group, ordered by (valid_from, to_key, recorded_at)."""
    events: list[tuple[datetime, datetime, int, str, Assertion | Ending]] = [
        (a.observed_at, a.recorded_at, 0, a.to_key, a) for a in assertions
    ]
    events += [(e.valid_at, e.recorded_at, 1, e.to_key, e) for e in endings]
    events.sort(key=lambda event: event[:4])
    open_: dict[str, _Open] = {}
    closed: list[Interval] = []

    def close(key: str, at: datetime, recorded: datetime, reason: EndReason, by: str) -> None:
        held = open_.pop(key)
        closed.append(
            Interval(
                key,
                held.valid_from,
                at,
                held.recorded_at,
                max(recorded, held.recorded_at),
                reason,
                by,
            )
        )

    for at, recorded, _, key, event in events:
        if isinstance(event, Assertion):
            if cardinality is Cardinality.ONE:
                for other in sorted(k for k in open_ if k != key):
                    close(other, at, recorded, EndReason.SUPERSEDED, event.source)
            held = open_.get(key)
            if held is None:
                open_[key] = _Open(at, recorded)
            else:
                held.recorded_at = min(held.recorded_at, recorded)
        elif key in open_:
            close(key, at, recorded, event.reason, event.ended_by)
    closed += [Interval(k, o.valid_from, None, o.recorded_at) for k, o in open_.items()]
    return sorted(closed, key=lambda i: (i.valid_from, i.to_key, i.recorded_at))


def latest(intervals: Iterable[Interval]) -> dict[str, Interval]:
    """Each target's last interval: the open one, else the one that ended last."""
    last: dict[str, Interval] = {}
    for interval in intervals:
        held = last.get(interval.to_key)
        if held is None or held.valid_from <= interval.valid_from:
            last[interval.to_key] = interval
    return last


def checked_observed_at(value: datetime | None, now: datetime, field: str) -> datetime | None:
    """``value`` in UTC; a ValidationError naming ``field`` when it is before 1900 or more
    than a day past ``now``, or has no time zone."""
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValidationError(f"{field} needs a time zone (e.g. 2026-01-31T09:00:00Z)", field=field)
    value = value.astimezone(UTC)
    if value < EARLIEST or value > now + FUTURE_SLACK:
        raise ValidationError(f"{field} must lie between 1900 and a day from now", field=field)
    return value


def as_of(value: datetime | None, now: datetime) -> datetime | None:
    """The time a read answers for: None (now) for none or a time in the future."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return None if value >= now else value.astimezone(UTC)


def iso(value: datetime) -> str:
    """Fixed-width UTC text that sorts in the order of time (as stored on edges)."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_iso(value: str) -> datetime:
    """The time ``iso`` wrote."""
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
