"""The server's lifespan: the runtime opens at startup and closes at shutdown, nothing at import.

`server_lifespan` is what ``create_app`` hands Starlette; read it first. The runtime it builds
goes into the holder the request handlers read (``holder["runtime"]``), absent while starting.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

import asyncpg
import redis.asyncio as aioredis
from starlette.applications import Starlette

from kenning.domain.embedding import Embedder
from kenning.domain.models.ports import ModelClient
from kenning.heap import keep_freed_memory, pretouch_heap
from kenning.logs import configure_logging, log_event
from kenning.metrics import ServiceMetrics
from kenning.router import Router
from kenning.router_mount import running_router
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.health import verify_database, verify_embedder
from kenning.storage.db.migrate import head_revision
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.embedders.observed import ObservedEmbedder
from kenning.storage.models.factory import create_model_client

# The server's startup and shutdown events have always been logged under this name.
logger = logging.getLogger("kenning.app")

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]


def server_lifespan(
    settings: Settings,
    holder: dict[str, Runtime],
    router_app: Starlette | None,
    service: ServiceMetrics,
    embedder: Embedder | None,
    models: ModelClient | None = None,
) -> Lifespan:
    """The app's lifespan: open pools, router, embedder and model client, start the workers,
    then close all. ``models`` replaces the model client the settings name (tests pass a fake).
    """

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        configure_logging(settings.log_level, as_json=settings.log_as_json)
        pool = await create_pool(settings)
        redis = aioredis.from_url(settings.redis_url)
        routing = AsyncExitStack()
        router = await routing.enter_async_context(running_router(router_app))
        model = ObservedEmbedder(
            embedder or create_embedder(settings, router=router), service.observe_embedding
        )
        chat = models if models is not None else create_model_client(settings, router=router)
        try:
            await _start(settings, holder, pool, redis, model, chat, router, service)
            yield
        finally:
            stopping = holder.pop("runtime", None)
            if stopping is not None:
                await stopping.queue.aclose()
                await stopping.api_keys.aclose()
                await stopping.chunk_index.close()
            await model.aclose()
            await chat.aclose()
            await routing.aclose()
            await redis.aclose()
            await pool.close()
            log_event(logger, "server.stopped")

    return lifespan


async def _start(
    settings: Settings,
    holder: dict[str, Runtime],
    pool: asyncpg.Pool,
    redis: aioredis.Redis,
    model: ObservedEmbedder,
    chat: ModelClient,
    router: Router | None,
    service: ServiceMetrics,
) -> None:
    async with pool.acquire() as conn:
        await verify_database(conn, settings, head_revision(settings))
        await verify_embedder(conn, model.model, model.dimension)
    # Load the model now so the first request does not pay for it.
    await model.warm_up()
    # In the holder before the workers start, so shutdown closes a queue that failed halfway.
    runtime = holder["runtime"] = Runtime(
        settings=settings,
        pool=pool,
        redis=redis,
        embedder=model,
        router=router,
        models=chat,
        metrics=service,
    )
    if settings.allow_anonymous:
        logger.warning(
            "auth.anonymous.enabled",
            extra={
                "detail": "requests without a key read global data "
                "(KENNING_ALLOW_ANONYMOUS); never use this in production"
            },
        )
    await runtime.queue.start_workers(
        runtime.job_deps(), settings.queue_workers, service.observe_job
    )
    # Everything loaded so far lives as long as the process: keeping it out of the
    # collector's full passes removed ~120 ms pauses under large ingests.
    gc.freeze()
    keep_freed_memory()
    pretouch_heap(2 * settings.max_request_bytes)
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
