"""Types of the model router's live state: ``routerStatus`` and ``routerEvents``."""

from __future__ import annotations

from datetime import datetime

import strawberry

from kenning.router import EventKind, ModelSet

strawberry.enum(
    ModelSet,
    name="RouterModelSet",
    description="The set of models a GPU holds: ORCHESTRATOR (priority-0 work) or BACKGROUND.",
)
strawberry.enum(
    EventKind,
    name="RouterEventKind",
    description="PREEMPTION: background work cancelled on a GPU and re-run elsewhere; "
    "SWAP_*: a GPU changing model set; BACKEND_HEALTH: a backend became healthy or "
    "unhealthy; ANNOUNCE/RELEASE: priority-0 sessions; STATE_STORE: Redis lost or back.",
)


@strawberry.type(description="One Ollama backend as the router sees it.")
class RouterBackend:
    name: str
    gpu: bool
    url: str | None = strawberry.field(description="Only for global admin keys.")
    healthy: bool = strawberry.field(description="False while its circuit breaker is open.")
    breaker: str = strawberry.field(description="closed, open or half_open.")
    last_error: str | None
    holds: ModelSet | None = strawberry.field(
        description="The model set a GPU holds (null: not known yet, or the CPU backend)."
    )
    swapping: bool
    inflight: int = strawberry.field(description="Requests sent to the backend, not finished.")
    waiting: int = strawberry.field(description="Requests in the router's queue for it.")
    queue_depth: int = strawberry.field(description="How many may run on it at once.")
    vram_budget_mb: int


@strawberry.type(description="An announced priority-0 session (or recent priority-0 traffic).")
class RouterLease:
    session: str | None = strawberry.field(description="Only for global admin keys.")
    traffic: bool = strawberry.field(
        description="True for the lease priority-0 requests renew themselves (no announce)."
    )
    expires_at: datetime
    expires_in_seconds: float


@strawberry.type(description="Models of each set, as configured.")
class RouterModelSets:
    orchestrator: list[str]
    background: list[str]


@strawberry.type(description="One router event; fields that do not apply to its kind are null.")
class RouterEvent:
    kind: EventKind
    at: datetime
    backend: str | None
    target_set: ModelSet | None = strawberry.field(description="SWAP_*: the set swapped to.")
    cancelled: int | None = strawberry.field(
        description="PREEMPTION, SWAP_FINISHED: background requests cancelled."
    )
    rerouted_waiting: int | None = strawberry.field(
        description="PREEMPTION: queued background requests sent to another backend."
    )
    reason: str | None = strawberry.field(description="PREEMPTION: why.")
    unloaded: list[str] | None = strawberry.field(description="SWAP_FINISHED.")
    preloaded: list[str] | None = strawberry.field(description="SWAP_FINISHED.")
    seconds: float | None = strawberry.field(description="SWAP_FINISHED: how long it took.")
    healthy: bool | None = strawberry.field(description="BACKEND_HEALTH.")
    breaker: str | None = strawberry.field(description="BACKEND_HEALTH.")
    error: str | None = strawberry.field(description="BACKEND_HEALTH, SWAP_FAILED.")
    session: str | None = strawberry.field(
        description="ANNOUNCE, RELEASE; only for global admin keys."
    )
    redis_up: bool | None = strawberry.field(description="STATE_STORE.")


@strawberry.type(description="The model router of the server that answers.")
class RouterStatus:
    mode: str = strawberry.field(description="cpu-only, single-gpu or multi-gpu.")
    state_store: str = strawberry.field(
        description="redis, memory, or memory (redis unreachable): where shared state lives."
    )
    critical_inflight: int = strawberry.field(description="Priority-0 requests running now.")
    backends: list[RouterBackend]
    leases: list[RouterLease]
    model_sets: RouterModelSets
    recent_events: list[RouterEvent] = strawberry.field(description="The last 20, oldest first.")
