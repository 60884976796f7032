"""The circuit breaker: opens after N failures, half-opens after the pause, closes on success."""

from __future__ import annotations

from kenning.router.upstream.breaker import BreakerState, CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def state(breaker: CircuitBreaker) -> BreakerState:
    return breaker.state  # read through a call so each check sees the clock anew


def test_opens_after_threshold_and_recovers_through_half_open() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=3, reset_seconds=10.0, clock=clock)
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.allows_traffic() and breaker.failures == 2
    breaker.record_failure()
    assert state(breaker) is BreakerState.OPEN and not breaker.allows_probe()
    clock.now += 9.9
    assert state(breaker) is BreakerState.OPEN
    clock.now += 0.2
    assert state(breaker) is BreakerState.HALF_OPEN
    assert breaker.allows_probe() and not breaker.allows_traffic()
    breaker.record_success()
    assert state(breaker) is BreakerState.CLOSED and breaker.failures == 0


def test_failed_probe_reopens_for_a_full_pause() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=1, reset_seconds=5.0, clock=clock)
    breaker.record_failure()
    clock.now += 5.0
    assert state(breaker) is BreakerState.HALF_OPEN
    breaker.record_failure()
    assert state(breaker) is BreakerState.OPEN
    clock.now += 4.9
    assert state(breaker) is BreakerState.OPEN


def test_trip_opens_at_once() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=5, reset_seconds=1.0, clock=clock)
    breaker.trip()
    assert state(breaker) is BreakerState.OPEN
    clock.now += 1.0
    assert state(breaker) is BreakerState.HALF_OPEN


def test_success_resets_the_count() -> None:
    breaker = CircuitBreaker(failure_threshold=2, reset_seconds=1.0)
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    assert breaker.allows_traffic()
