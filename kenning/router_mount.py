"""The model router inside a Kenning process, built from ``Settings.router``.

Kenning mounts it only when at least one backend is configured (``KENNING_ROUTER_GPU_BACKENDS``
or ``KENNING_ROUTER_CPU_BACKEND``): the Ollama API under ``/ollama``, the control endpoints
under ``/router``. A server without backends starts exactly as before. Starlette does not run
a mounted app's lifespan, so the parent enters `running_router` from its own.

Mounted, the router takes the API keys /graphql takes (``Authorization: Bearer kn_...``; an
Ollama client sends it through its ``headers`` option). The router knows nothing of keys: the
parent passes ``identify(request)``, which returns the caller's `Principal` (None without a
valid key), and `access_for` turns it into what the router enforces:

| role  | model calls (``/ollama/api/*``)   | announce, release | status, metrics, events |
|-------|-----------------------------------|-------------------|-------------------------|
| none  | 401                               | 401               | 401                     |
| ui    | priority 1-3 (claiming 0: 403)    | 403               | yes                     |
| agent | any priority                      | yes               | yes                     |
| admin | any priority                      | yes               | yes; a global admin key |
|       |                                   |                   | also sees backend URLs  |
|       |                                   |                   | and session names       |

A model rule that says 0 runs at 1 for a ui key: it claimed nothing, so it is not refused.
``KENNING_ALLOW_ANONYMOUS`` opens global reads on /graphql, never the router.

An announced session belongs to the key's client and is recorded with the key's id: its
name is in that client's namespace, a release ends only sessions of the caller's client
(without a name: those its key announced), and only a global admin key may end anyone's.
A key's priority-0 model calls renew its client's traffic lease: a release by any key of that
client ends it, another client's release never does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount

from kenning.domain.access.principal import Principal, Role, bearer_key
from kenning.http_errors import REALM
from kenning.router import (
    Access,
    AccessDenied,
    Gate,
    Priority,
    Router,
    SessionOwner,
    control_routes,
    create_router_app,
    ollama_routes,
    router_lifespan,
    router_of,
)
from kenning.settings import Settings

OLLAMA_PREFIX = "/ollama"
CONTROL_PREFIX = "/router"
_MODEL_PATHS = ("/api/embed", "/api/embeddings", "/api/generate", "/api/chat")
_CONTROL_PATHS = ("/announce", "/release", "/status", "/metrics", "/events")
# The same words and challenge as /graphql's 401, so one client handles both.
_NO_KEY = "no API key: send Authorization: Bearer <API key>"
_BAD_KEY = "the API key is not valid (unknown or revoked)"

Identify = Callable[[Request], Awaitable[Principal | None]]


def router_app_for(settings: Settings) -> Starlette | None:
    """The router app (not started yet), or None when no backend is configured.

    Its shared state goes to ``KENNING_ROUTER_REDIS_URL``, else to Kenning's own Redis, so
    every Kenning process (servers, workers, ``kenning router``) routes consistently.
    """
    if not settings.router.has_backends:
        return None
    return create_router_app(settings.router, redis_url=state_redis_url(settings))


def state_redis_url(settings: Settings) -> str:
    """Where router state is shared: ``KENNING_ROUTER_REDIS_URL``, else Kenning's Redis."""
    return settings.router.redis_url or settings.redis_url


def access_for(caller: Principal) -> Access:
    """What a key may do on the router (see the table in the module docstring)."""
    full = caller.role in (Role.AGENT, Role.ADMIN)
    global_admin = caller.role is Role.ADMIN and caller.scope.client_id == ""
    return Access(
        control=full,
        private=global_admin,
        top_priority=Priority.CRITICAL if full else Priority.CODING,
        owner=SessionOwner(client=caller.scope.client_id, key=caller.key_id),
        all_sessions=global_admin,
        who=f"this key has role {caller.role}",
        needs="an agent or admin key",
    )


def key_gate(identify: Identify) -> Gate:
    """The router's `Gate` for API keys: 401 without a valid key (anonymous included)."""

    async def gate(request: Request) -> Access:
        caller = await identify(request)
        if caller is None or caller.anonymous:
            if bearer_key(request.headers.get("authorization")) is None:
                raise AccessDenied(401, _NO_KEY, {"WWW-Authenticate": REALM})
            challenge = f'{REALM}, error="invalid_token"'
            raise AccessDenied(401, _BAD_KEY, {"WWW-Authenticate": challenge})
        return access_for(caller)

    return gate


def router_mounts(
    router_app: Starlette, *, identify: Identify, max_body_bytes: int
) -> list[BaseRoute]:
    """``/ollama/api/*`` and ``/router/*`` routes of one router, for the parent app.

    ``identify(request)`` is the caller behind the request's key, None without a valid one;
    it raises `AccessDenied` (503) when it cannot tell, e.g. with the key store down. A model
    call's body over ``max_body_bytes`` (``KENNING_MAX_REQUEST_BYTES``) is refused with 413.
    """
    router = router_of(router_app)
    gate = key_gate(identify)
    return [
        Mount(
            OLLAMA_PREFIX, routes=ollama_routes(router, gate=gate, max_body_bytes=max_body_bytes)
        ),
        Mount(CONTROL_PREFIX, routes=control_routes(router, gate=gate)),
    ]


def router_metric_paths() -> tuple[str, ...]:
    """Mounted paths worth their own label in Kenning's HTTP metrics."""
    return (
        *(OLLAMA_PREFIX + path for path in _MODEL_PATHS),
        *(CONTROL_PREFIX + path for path in _CONTROL_PATHS),
    )


@asynccontextmanager
async def running_router(router_app: Starlette | None) -> AsyncIterator[Router | None]:
    """Start the router (health probes, reconcile loop) for the body; None without one."""
    if router_app is None:
        yield None
        return
    async with router_lifespan(router_app) as router:
        yield router
