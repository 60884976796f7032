"""Resolvers of the model router's live state: ``routerStatus`` and ``routerEvents``.

Who sees it: router state is operational, not knowledge, and holds no client's data, so any
API key may read it (``ui`` keys included: the UI is where it is shown), but not an
anonymous caller (``KENNING_ALLOW_ANONYMOUS``). Backend URLs and announced session names
describe the deployment and the agents of every client, so only global admin keys (role
admin, no client) get them; for everyone else those fields are null.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from datetime import UTC, datetime
from typing import Any

from kenning.domain.access.principal import Role
from kenning.domain.errors import NotFoundError, ScopeError
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import principal
from kenning.router import EventKind, ModelSet, Router, RouterEvent
from kenning.router.scheduling.sessions import CRITICAL_TRAFFIC
from kenning.schema import router as gql

RECENT_EVENTS = 20
NO_ROUTER = (
    "this server runs no model router: configure KENNING_ROUTER_GPU_BACKENDS or "
    "KENNING_ROUTER_CPU_BACKEND"
)


def _operator(info: Info) -> bool:
    """True for a global admin; raises ``ScopeError`` for an anonymous caller."""
    caller = principal(info)
    if caller.anonymous:
        raise ScopeError("the model router's state needs an API key")
    return caller.role is Role.ADMIN and caller.scope.client_id == ""


def _at(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def _model_set(value: object) -> ModelSet | None:
    return ModelSet(str(value)) if value in set(ModelSet) else None


def to_event_type(event: RouterEvent, operator: bool) -> gql.RouterEvent:
    """The GraphQL form of one router event (see `kenning.router.events`)."""
    d: Mapping[str, Any] = event.detail
    return gql.RouterEvent(
        kind=event.kind,
        at=_at(event.at),
        backend=event.backend,
        target_set=_model_set(d.get("target")),
        cancelled=d.get("cancelled"),
        rerouted_waiting=d.get("rerouted_waiting"),
        reason=d.get("reason"),
        unloaded=d.get("unloaded"),
        preloaded=d.get("preloaded"),
        seconds=d.get("seconds"),
        healthy=d.get("healthy"),
        breaker=d.get("breaker"),
        error=d.get("error"),
        session=d.get("session") if operator else None,
        redis_up=d.get("redis_up"),
    )


def _backend(b: Mapping[str, Any], operator: bool) -> gql.RouterBackend:
    return gql.RouterBackend(
        name=b["name"],
        gpu=b["kind"] == "gpu",
        url=b["url"] if operator else None,
        healthy=b["healthy"],
        breaker=b["breaker"],
        last_error=b["last_error"],
        holds=_model_set(b["holds"]),
        swapping=b["swapping"],
        inflight=b["inflight"],
        waiting=b["waiting"],
        queue_depth=b["queue_depth"],
        vram_budget_mb=b["vram_budget_mb"],
    )


def _lease(session: str | None, seconds_left: float, now: float) -> gql.RouterLease:
    return gql.RouterLease(
        session=session,
        traffic=session == CRITICAL_TRAFFIC,
        expires_at=_at(now + seconds_left),
        expires_in_seconds=seconds_left,
    )


def _leases(status: Mapping[str, Any], now: float, operator: bool) -> list[gql.RouterLease]:
    """The traffic lease, then each session once: several clients may announce one name,
    and a count merged by name would tell one client another's session names."""
    traffic = status["leases"].get(CRITICAL_TRAFFIC)
    leases = [] if traffic is None else [_lease(CRITICAL_TRAFFIC, traffic, now)]
    for held in status["sessions"]:
        leases.append(_lease(held["session"] if operator else None, held["expires_in"], now))
    return leases


async def router_status(router: Router, operator: bool) -> gql.RouterStatus:
    """A snapshot of ``router`` as the caller may see it."""
    status = await router.status()
    now = time.time()
    recent = list(router.events.recent)[-RECENT_EVENTS:]
    return gql.RouterStatus(
        mode=status["mode"],
        state_store=status["state_store"],
        critical_inflight=status["critical_inflight"],
        backends=[_backend(b, operator) for b in status["backends"]],
        leases=_leases(status, now, operator),
        model_sets=gql.RouterModelSets(**router.model_sets),
        recent_events=[to_event_type(e, operator) for e in recent],
    )


async def resolve_router_status(info: Info) -> gql.RouterStatus | None:
    """Backends with health, which GPU holds which set, queues and leases; null when this
    server runs no router."""
    operator = _operator(info)
    router = info.context.runtime.router
    return None if router is None else await router_status(router, operator)


async def router_events(
    info: Info, kinds: list[EventKind] | None = None
) -> AsyncGenerator[gql.RouterEvent, None]:
    """Router events from now on (all kinds unless ``kinds`` names some)."""
    operator = _operator(info)
    router = info.context.runtime.router
    if router is None:
        raise NotFoundError(NO_ROUTER)
    wanted = frozenset(kinds) if kinds else frozenset(EventKind)
    async with aclosing(router.events.subscribe()) as events:
        async for event in events:
            if event.kind in wanted:
                yield to_event_type(event, operator)
