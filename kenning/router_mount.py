"""The model router inside a Kenning process, built from ``Settings.router``.

Kenning mounts it only when at least one backend is configured (``KENNING_ROUTER_GPU_BACKENDS``
or ``KENNING_ROUTER_CPU_BACKEND``): the Ollama API under ``/ollama``, the control endpoints
under ``/router``. A server without backends starts exactly as before. Starlette does not run
a mounted app's lifespan, so the parent enters `running_router` from its own.

The router knows nothing of API keys: the parent passes ``is_admin(request)`` and
``/router/status`` (and ``/router/events``) show backend URLs and session names only when it
is true, as GraphQL's ``routerStatus`` does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount

from kenning.router import (
    Router,
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


async def _nobody(_: Request) -> bool:
    return False


def router_mounts(
    router_app: Starlette, *, is_admin: Callable[[Request], Awaitable[bool]] = _nobody
) -> list[BaseRoute]:
    """``/ollama/api/*`` and ``/router/*`` routes of one router, for the parent app.

    ``is_admin(request)`` says whether the caller may see backend URLs and session names;
    the default shows them to no one.
    """
    router = router_of(router_app)
    return [
        Mount(OLLAMA_PREFIX, routes=ollama_routes(router)),
        Mount(CONTROL_PREFIX, routes=control_routes(router, may_see_private=is_admin)),
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
