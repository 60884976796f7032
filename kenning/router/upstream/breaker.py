"""A circuit breaker per backend: closed → open after N failures → half-open after a pause."""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Counts consecutive failures; traffic flows only while closed.

    Example: ``b = CircuitBreaker(3, 10.0); b.record_failure(); b.allows_traffic()``.
    Half-open admits one probe (the health check), whose result closes or reopens it.
    """

    def __init__(
        self,
        failure_threshold: int,
        reset_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failure_threshold = failure_threshold
        self.reset_seconds = reset_seconds
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return BreakerState.CLOSED
        if self._clock() - self._opened_at >= self.reset_seconds:
            return BreakerState.HALF_OPEN
        return BreakerState.OPEN

    @property
    def failures(self) -> int:
        return self._failures

    def allows_traffic(self) -> bool:
        return self.state is BreakerState.CLOSED

    def allows_probe(self) -> bool:
        return self.state is not BreakerState.OPEN

    def record_success(self) -> None:
        self._failures = 0
        self._opened_at = None

    def trip(self) -> None:
        """Open at once, e.g. for a backend that is down when the router starts."""
        self._failures = max(self._failures, self.failure_threshold)
        self._opened_at = self._clock()

    def record_failure(self) -> None:
        self._failures += 1
        if self._opened_at is not None or self._failures >= self.failure_threshold:
            self._opened_at = self._clock()
