"""``create_app(settings)``: the Starlette application with GraphQL, MCP, probes and metrics."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Sequence

import asyncpg
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL

from kenning.console import console_routes
from kenning.docs_site import docs_routes
from kenning.domain.access.principal import Principal, bearer_key
from kenning.domain.embedding import Embedder
from kenning.domain.errors import ConfigurationError
from kenning.domain.health import PART_NAMES
from kenning.domain.models.ports import ModelClient
from kenning.graphiql import graphiql_page, graphiql_routes
from kenning.graphql.http.file_download import file_routes
from kenning.graphql.http.upload_guard import PREFLIGHT_HEADERS, upload_refusal
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut
from kenning.graphql.view import CohortGraphQL, KenningGraphQL
from kenning.http_metrics import HttpMetrics
from kenning.lifespan import server_lifespan
from kenning.logs import configure_logging
from kenning.mcp import mcp_endpoint
from kenning.metrics import ServiceMetrics
from kenning.probes import probe_routes
from kenning.router import AccessDenied
from kenning.router_mount import router_app_for, router_metric_paths, router_mounts
from kenning.runtime import Runtime
from kenning.schema.build import ApiLimits, build_schema
from kenning.settings import Settings
from kenning.storage.db.health import unavailable_part, verify_database, verify_embedder
from kenning.storage.db.migrate import head_revision
from kenning.storage.db.pool import connect
from kenning.storage.embedders.factory import create_embedder

# prometheus_client's own variable: set before the library is imported, every metric of the
# process writes to files there (see kenning.http_metrics).
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"


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


def app_from_environment() -> Starlette:
    """The app of one of ``kenning serve --workers N``'s processes (a uvicorn factory).

    Settings come from the environment the parent left, host and port included; the
    parent's ``PROMETHEUS_MULTIPROC_DIR`` is where every worker's metrics are summed.
    """
    settings = Settings()
    configure_logging(settings.log_level, as_json=settings.log_as_json)
    return create_app(settings, metrics_dir=os.environ.get(MULTIPROCESS_DIR) or None)


def create_app(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    models: ModelClient | None = None,
    metrics_dir: str | None = None,
) -> Starlette:
    """Build the ASGI app; pools open and close in its lifespan, nothing at import.

    ``embedder`` replaces the one the settings name (benchmarks count its calls), ``models``
    the model client; the app closes them on shutdown either way. With a router backend
    configured (``settings.router``) the model router is mounted at ``/ollama`` and
    ``/router``, and the ollama embedder and Kenning's model calls use it. ``metrics_dir``
    (one of several server processes) makes ``/metrics`` sum the series of all of them.
    """
    holder: dict[str, Runtime] = {}
    router_app = router_app_for(settings)
    routed_paths = router_metric_paths() if router_app is not None else ()
    metrics = HttpMetrics(
        ("/graphql", "/mcp", "/healthz", "/readyz", "/metrics", *routed_paths), metrics_dir
    )
    service = ServiceMetrics(metrics.registry)
    graphql = _graphql_view(settings, holder, service)
    # The same use cases as MCP tools for agents, admitted with the same API keys.
    mcp = mcp_endpoint(holder, unavailable_part, settings.max_request_bytes)

    async def graphql_http(request: Request) -> Response:
        if request.method == "GET" and settings.graphiql_enabled and _wants_page(request):
            return await graphiql_page(request)
        if (refused := upload_refusal(request)) is not None:
            return refused
        return await graphql.handle_http(request)

    app = Starlette(
        routes=[
            Route("/graphql", graphql_http, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
            # No method list: the MCP transport answers GET, POST and DELETE itself.
            Route("/mcp", mcp.app, methods=None),
            *probe_routes(holder, metrics, service, router_app),
            *file_routes(holder, unavailable_part),
            *_router_routes(settings, router_app, holder),
            *(graphiql_routes() if settings.graphiql_enabled else ()),
            # The web console (static files; every action goes through /graphql with a key).
            *console_routes(),
            # The documentation site once `make docs` built it; a hint to build it until then.
            *docs_routes(),
        ],
        lifespan=mcp.inside(
            server_lifespan(settings, holder, router_app, service, embedder, models)
        ),
    )
    if settings.cors_origins:
        _allow_origins(app, settings.cors_origins)
    # Outermost: every answer, CORS preflights included, is counted and has a request id.
    app.add_middleware(metrics.middleware_class)
    return app


def _router_routes(
    settings: Settings, router_app: Starlette | None, holder: dict[str, Runtime]
) -> Sequence[BaseRoute]:
    """The model router's mounts (``/ollama``, ``/router``) when one is configured, its
    callers known by Kenning's API keys and their bodies capped like ``/graphql``'s."""
    if router_app is None:
        return ()
    return router_mounts(
        router_app, identify=key_holder(holder), max_body_bytes=settings.max_request_bytes
    )


# What an MCP client in a browser sends to /mcp beside the key (Streamable HTTP).
MCP_HEADERS = ("mcp-protocol-version", "mcp-session-id", "last-event-id")


def _allow_origins(app: Starlette, origins: list[str]) -> None:
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["authorization", "content-type", *PREFLIGHT_HEADERS, *MCP_HEADERS],
        expose_headers=["x-request-id", "x-kenning-worker", "mcp-session-id"],
        max_age=600,
    )


def _graphql_view(
    settings: Settings, holder: dict[str, Runtime], service: ServiceMetrics
) -> KenningGraphQL:
    limits = ApiLimits(
        max_depth=settings.graphql_max_depth,
        max_tokens=settings.graphql_max_tokens,
        max_aliases=settings.graphql_max_aliases,
        max_fields=settings.graphql_max_fields,
        introspection=settings.graphql_introspection,
    )
    # Subscribers with the same selection and visibility share one execution per event,
    # through this app's own caches (never another app's in the same process).
    return CohortGraphQL(
        holder,
        unavailable_part,
        fan_out=SubscriptionFanOut(),
        schema=build_schema(
            limits, unavailable=unavailable_part, observe=service.observe_operation
        ),
        # Kenning serves its own GraphiQL (offline, no key needed to load it): see graphql_http.
        graphql_ide=None,
        keep_alive=True,
        keep_alive_interval=15,
        subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL],
        allowed_origins=settings.cors_origins,
        multipart_uploads_enabled=True,  # ingestFile; upload_refusal keeps CSRF out
    )
