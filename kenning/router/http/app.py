"""`create_router_app`: the router as a Starlette app, standalone or mounted in Kenning's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.routing import Mount

from kenning.router.config import RouterSettings
from kenning.router.http.access import Gate, open_gate
from kenning.router.http.bodies import DEFAULT_MAX_BODY_BYTES
from kenning.router.http.control import control_routes
from kenning.router.http.proxy import ollama_routes
from kenning.router.router import Router


def create_router_app(
    settings: RouterSettings,
    *,
    redis_url: str | None = None,
    gate: Gate = open_gate,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> Starlette:
    """An app serving ``/api/*`` (Ollama-compatible) and ``/router/*``; its lifespan starts
    and stops the `Router`, reachable as ``app.state.router``.

    ``gate`` says who may do what (`kenning.router.http.access`); the default lets anyone do
    everything, which only a trusted network should see (``kenning router`` refuses to
    serve so without ``--allow-anonymous``). A parent that mounts the router's routes
    passes its own gate to `control_routes` and `ollama_routes`. ``max_body_bytes`` caps
    the body of a model call (`kenning.router.http.bodies`).

    Starlette does not run the lifespan of a mounted app: a parent app that mounts this one
    enters ``router_lifespan(app)`` from its own lifespan.
    """
    router = Router(settings, redis_url=redis_url)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await router.start()
        try:
            yield
        finally:
            await router.stop()

    app = Starlette(
        routes=[
            Mount("/router", routes=control_routes(router, gate=gate)),
            *ollama_routes(router, gate=gate, max_body_bytes=max_body_bytes),
        ],
        lifespan=lifespan,
    )
    app.state.router = router
    return app


def router_of(app: Starlette) -> Router:
    """The `Router` behind an app built by `create_router_app`."""
    router = app.state.router
    assert isinstance(router, Router)
    return router


@asynccontextmanager
async def router_lifespan(app: Starlette) -> AsyncIterator[Router]:
    """Start and stop the router of a mounted app from the parent's lifespan."""
    async with app.router.lifespan_context(app):
        yield router_of(app)
