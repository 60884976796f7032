"""``create_app(settings)``: the Starlette application with GraphQL, probes and metrics."""

from __future__ import annotations

import contextlib
import gc
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import asyncpg
import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL

from kenning.domain.access.principal import Principal, bearer_key
from kenning.domain.embedding import Embedder
from kenning.domain.errors import ConfigurationError
from kenning.domain.health import overall
from kenning.graphiql import graphiql_page, graphiql_routes
from kenning.graphql_view import KenningGraphQL
from kenning.http_metrics import HttpMetrics
from kenning.logs import configure_logging, log_event
from kenning.metrics import ServiceMetrics
from kenning.router import AccessDenied, router_of
from kenning.router_mount import router_app_for, router_metric_paths, router_mounts, running_router
from kenning.runtime import Runtime
from kenning.schema.build import ApiLimits, build_schema
from kenning.schema.execution.error_shaping import PART_NAMES
from kenning.settings import Settings
from kenning.storage.db.health import (
    unavailable_part,
    verify_database,
    verify_embedder,
)
from kenning.storage.db.migrate import head_revision
from kenning.storage.db.pool import connect, create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.embedders.observed import ObservedEmbedder

logger = logging.getLogger("kenning.app")


_READY_STATUS = {"ok": "ready", "degraded": "degraded", "down": "unready"}


def _wants_page(request: Request) -> bool:
    # A browser typing the URL asks for HTML and sends no query; GraphQL over GET does.
    return "text/html" in request.headers.get("accept", "") and "query" not in request.query_params


async def preflight(settings: Settings) -> None:
    """Raise ``ConfigurationError`` saying what to do when the database does not fit."""
    try:
        conn = await connect(settings)
    except (OSError, asyncpg.PostgresError) as error:
        raise ConfigurationError(
            f"cannot connect to PostgreSQL ({type(error).__name__}: {error}); is it running? "
            "(`kenning stack up` starts the local one; KENNING_DATABASE_URL points elsewhere)"
        ) from error
    try:
        await verify_database(conn, settings, head_revision(settings))
        embedder = create_embedder(settings)
        try:
            await verify_embedder(conn, embedder.model, embedder.dimension)
        finally:
            await embedder.aclose()
    finally:
        await conn.close()


def key_holder(holder: dict[str, Runtime]) -> Callable[[Request], Awaitable[Principal | None]]:
    """The caller behind a request's API key, for the mounted router (None without a valid
    key: no key at all is None even with KENNING_ALLOW_ANONYMOUS, which opens reads only)."""

    async def identify(request: Request) -> Principal | None:
        runtime = holder.get("runtime")
        if runtime is None:
            raise AccessDenied(503, "the server is starting", {"Retry-After": "5"})
        key = bearer_key(request.headers.get("authorization"))
        if key is None:
            return None
        try:
            return await runtime.api_keys.authenticate(key)
        except Exception as error:
            part = unavailable_part(error)
            if part is None:
                raise
            message = f"{PART_NAMES.get(part, part)} is unavailable; try again shortly"
            raise AccessDenied(503, message, {"Retry-After": "5"}) from error

    return identify


def create_app(settings: Settings, *, embedder: Embedder | None = None) -> Starlette:
    """Build the ASGI app; pools open and close in its lifespan, nothing at import.

    ``embedder`` replaces the one the settings name (benchmarks count its calls); the app
    closes it on shutdown either way. With a router backend configured (``settings.router``)
    the model router is mounted at ``/ollama`` and ``/router`` and the ollama embedder uses it.
    """
    holder: dict[str, Runtime] = {}
    router_app = router_app_for(settings)
    routed_paths = router_metric_paths() if router_app is not None else ()
    metrics = HttpMetrics(("/graphql", "/healthz", "/readyz", "/metrics", *routed_paths))
    service = ServiceMetrics(metrics.registry)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        configure_logging(settings.log_level, as_json=settings.log_json)
        pool = await create_pool(settings)
        redis = aioredis.from_url(settings.redis_url)
        routing = AsyncExitStack()
        router = await routing.enter_async_context(running_router(router_app))
        model = ObservedEmbedder(
            embedder or create_embedder(settings, router=router), service.observe_embedding
        )
        try:
            async with pool.acquire() as conn:
                await verify_database(conn, settings, head_revision(settings))
                await verify_embedder(conn, model.model, model.dimension)
            # Load the model now so the first request does not pay for it.
            await model.warm_up()
            holder["runtime"] = Runtime(
                settings=settings,
                pool=pool,
                redis=redis,
                embedder=model,
                router=router,
                metrics=service,
            )
            if settings.allow_anonymous:
                logger.warning(
                    "auth.anonymous.enabled",
                    extra={"detail": "requests without a key read global data "
                                     "(KENNING_ALLOW_ANONYMOUS); never use this in production"},
                )  # fmt: skip
            runtime = holder["runtime"]
            await runtime.queue.start_workers(
                runtime.ingest_deps(), settings.queue_workers, service.observe_job
            )
            # Everything loaded so far lives as long as the process: keeping it out of the
            # collector's full passes removed ~120 ms pauses under large ingests.
            gc.freeze()
            # Large documents are worked in a thread; the loop gets the GIL back at every
            # switch interval, and answering a request takes several. 1 ms instead of 5
            # keeps other requests quick while a thread works.
            sys.setswitchinterval(0.001)
            endpoint = f"http://{settings.host}:{settings.port}/graphql"
            log_event(
                logger,
                "server.started",
                host=settings.host,
                port=settings.port,
                graphql=endpoint,
                graphiql=settings.graphiql_enabled,
            )
            yield
        finally:
            stopping = holder.pop("runtime", None)
            if stopping is not None:
                await stopping.queue.aclose()
                await stopping.api_keys.aclose()
            await model.aclose()
            await routing.aclose()
            await redis.aclose()
            await pool.close()
            log_event(logger, "server.stopped")

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "alive"})

    async def readyz(_: Request) -> Response:
        runtime = holder.get("runtime")
        if runtime is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        parts = await runtime.parts()
        state = overall(parts)
        body = {
            "status": _READY_STATUS[state],
            "parts": {part.name: part.detail for part in parts},
        }
        return JSONResponse(body, status_code=503 if state == "down" else 200)

    async def prometheus(_: Request) -> Response:
        runtime = holder.get("runtime")
        if runtime is not None:
            with contextlib.suppress(Exception):  # a scrape still answers with PG down
                await service.refresh_queue(runtime.queue.live_counts)
        payload, content_type = metrics.render()
        if router_app is not None:  # two registries, disjoint names: one exposition
            payload += router_of(router_app).metrics.exposition()
        return PlainTextResponse(payload, media_type=content_type)

    limits = ApiLimits(
        max_depth=settings.graphql_max_depth,
        max_tokens=settings.graphql_max_tokens,
        max_aliases=settings.graphql_max_aliases,
        max_fields=settings.graphql_max_fields,
        introspection=settings.graphql_introspection,
    )
    graphql = KenningGraphQL(
        holder,
        unavailable_part,
        schema=build_schema(
            limits, unavailable=unavailable_part, observe=service.observe_operation
        ),
        # Kenning serves its own GraphiQL (offline, no key needed to load it): see below.
        graphql_ide=None,
        keep_alive=True,
        keep_alive_interval=15,
        subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL],
        allowed_origins=settings.cors_origins,
    )

    async def graphql_http(request: Request) -> Response:
        if request.method == "GET" and settings.graphiql_enabled and _wants_page(request):
            return await graphiql_page(request)
        return await graphql.handle_http(request)

    app = Starlette(
        routes=[
            Route("/graphql", graphql_http, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", prometheus),
            *(
                router_mounts(router_app, identify=key_holder(holder))
                if router_app is not None
                else ()
            ),
            *(graphiql_routes() if settings.graphiql_enabled else ()),
        ],
        lifespan=lifespan,
    )
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["authorization", "content-type"],
            expose_headers=["x-request-id"],
            max_age=600,
        )
    # Outermost: every answer, CORS preflights included, is counted and has a request id.
    app.add_middleware(metrics.middleware_class)
    return app
