"""Prometheus metrics of one router instance, in a registry of its own."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_TTFB_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class RouterMetrics:
    """Requests by priority/backend/outcome, queue depth, preemptions, swaps, first byte."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.requests = Counter(
            "kenning_router_requests",
            "Model requests finished, by priority, backend and outcome.",
            ["priority", "backend", "outcome"],
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "kenning_router_queue_depth",
            "Requests waiting in the router's queue per backend.",
            ["backend"],
            registry=self.registry,
        )
        self.inflight = Gauge(
            "kenning_router_inflight",
            "Requests sent to a backend and not finished.",
            ["backend"],
            registry=self.registry,
        )
        self.preemptions = Counter(
            "kenning_router_preemptions",
            "Background requests cancelled on a GPU for priority-0 work.",
            ["backend"],
            registry=self.registry,
        )
        self.swaps = Counter(
            "kenning_router_set_swaps",
            "Model-set swaps per GPU and target set.",
            ["backend", "target"],
            registry=self.registry,
        )
        self.shared_slots_up = Gauge(
            "kenning_router_shared_slots_up",
            "1 while GPU slots are shared with other processes through Redis, 0 while this "
            "process schedules its GPUs alone.",
            registry=self.registry,
        )
        self.ttfb = Histogram(
            "kenning_router_time_to_first_byte_seconds",
            "From request arrival to the first response byte sent to the caller.",
            ["priority", "backend"],
            buckets=_TTFB_BUCKETS,
            registry=self.registry,
        )

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
