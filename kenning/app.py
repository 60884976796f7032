"""``create_app(settings)``: the Starlette application with GraphQL, probes and metrics."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from kenning.domain.embedding import Embedder
from kenning.domain.errors import ConfigurationError
from kenning.domain.principal import ANONYMOUS, Principal, bearer_key
from kenning.graphiql import graphiql_page, graphiql_routes
from kenning.http_metrics import HttpMetrics
from kenning.logs import configure_logging, log_event
from kenning.resolvers.context import Context
from kenning.router import router_of
from kenning.router_mount import router_app_for, router_metric_paths, router_mounts, running_router
from kenning.runtime import Runtime
from kenning.schema.build import ApiLimits, build_schema
from kenning.settings import Settings
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.health import readiness, verify_database, verify_embedder
from kenning.storage.migrate import head_revision
from kenning.storage.pool import connect, create_pool

logger = logging.getLogger("kenning.app")


class KenningGraphQL(GraphQL[Context, None]):
    """Strawberry's ASGI view with Kenning's typed context."""

    def __init__(self, holder: dict[str, Runtime], limits: ApiLimits, **kwargs: Any) -> None:
        super().__init__(build_schema(limits), **kwargs)
        self._holder = holder

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        runtime = self._holder["runtime"]
        caller = await _authenticate(runtime, request.headers.get("authorization"))
        if caller is None and isinstance(request, Request):
            raise HTTPException(401, "Unauthorized: send Authorization: Bearer <API key>")
        # A websocket may still authenticate in its connection_init payload.
        return Context(
            runtime=runtime,
            request=request,
            response=response if isinstance(response, Response) else None,
            principal=caller,
        )

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        if context.principal is None:
            params = context.connection_params or {}
            header = params.get("Authorization", params.get("authorization"))
            caller = await _authenticate(
                context.runtime, header if isinstance(header, str) else None
            )
            if caller is None:
                raise ConnectionRejectionError({"message": "Unauthorized"})
            context.principal = caller
        unset: UnsetType = UNSET
        return unset


def _wants_page(request: Request) -> bool:
    # A browser typing the URL asks for HTML and sends no query; GraphQL over GET does.
    return "text/html" in request.headers.get("accept", "") and "query" not in request.query_params


async def _authenticate(runtime: Runtime, header: str | None) -> Principal | None:
    key = bearer_key(header)
    if key is not None:
        return await runtime.api_keys.authenticate(key)
    return ANONYMOUS if runtime.settings.allow_anonymous else None


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

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        configure_logging(settings.log_level, as_json=settings.log_json)
        pool = await create_pool(settings)
        redis = aioredis.from_url(settings.redis_url)
        routing = AsyncExitStack()
        router = await routing.enter_async_context(running_router(router_app))
        model = embedder or create_embedder(settings, router=router)
        try:
            async with pool.acquire() as conn:
                await verify_database(conn, settings, head_revision(settings))
                await verify_embedder(conn, model.model, model.dimension)
            # Load the model now so the first request does not pay for it.
            warm_up = getattr(model, "warm_up", None)
            if warm_up is not None:
                await warm_up()
            holder["runtime"] = Runtime(
                settings=settings, pool=pool, redis=redis, embedder=model, router=router
            )
            if settings.allow_anonymous:
                logger.warning(
                    "auth.anonymous.enabled",
                    extra={"detail": "requests without a key read global data "
                                     "(KENNING_ALLOW_ANONYMOUS); never use this in production"},
                )  # fmt: skip
            runtime = holder["runtime"]
            await runtime.queue.start_workers(runtime.ingest_deps(), settings.queue_workers)
            log_event(logger, "server.started", host=settings.host, port=settings.port)
            yield
        finally:
            stopping = holder.pop("runtime", None)
            if stopping is not None:
                await stopping.queue.aclose()
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
        parts = await readiness(runtime.pool, runtime.redis, settings.graph_name)
        failing = {name: state for name, state in parts.items() if state != "ok"}
        body = {"status": "ready" if not failing else "unready", "parts": parts}
        return JSONResponse(body, status_code=503 if failing else 200)

    async def prometheus(_: Request) -> Response:
        payload, content_type = metrics.render()
        if router_app is not None:  # two registries, disjoint names: one exposition
            payload += router_of(router_app).metrics.exposition()
        return PlainTextResponse(payload, media_type=content_type)

    graphql = KenningGraphQL(
        holder,
        ApiLimits(
            max_depth=settings.graphql_max_depth,
            max_tokens=settings.graphql_max_tokens,
            max_aliases=settings.graphql_max_aliases,
            introspection=settings.graphql_introspection,
        ),
        # Kenning serves its own GraphiQL (offline, no key needed to load it): see below.
        graphql_ide=None,
        keep_alive=True,
        keep_alive_interval=15,
        subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL],
    )

    async def graphql_http(request: Request) -> Response:
        if request.method == "GET" and settings.graphiql_enabled and _wants_page(request):
            return await graphiql_page(request)
        try:
            return await graphql.run(request)
        except HTTPException as error:
            return PlainTextResponse(error.reason, status_code=error.status_code)

    app = Starlette(
        routes=[
            Route("/graphql", graphql_http, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", prometheus),
            *(router_mounts(router_app) if router_app is not None else ()),
            *(graphiql_routes() if settings.graphiql_enabled else ()),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(metrics.middleware_class)
    return app
