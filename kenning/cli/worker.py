"""``kenning worker``: queue workers in their own process (or ``--processes N``), no HTTP
server."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import threading
from typing import Annotated

import redis.asyncio as aioredis
import typer

from kenning.cli.exit_codes import ExitCode
from kenning.cli.options import at_least_one
from kenning.logs import configure_logging, log_event
from kenning.settings import Settings

logger = logging.getLogger("kenning.worker")
# More processes than this is a typo: each opens its own pool and loads its own embedder.
MAX_PROCESSES = 64


async def run_worker(settings: Settings, count: int, stop: asyncio.Event | None = None) -> None:
    """Run ``count`` workers until ``stop`` is set (or SIGTERM/SIGINT arrives)."""
    from kenning.router_mount import router_app_for, running_router
    from kenning.runtime import Runtime
    from kenning.storage.db.health import verify_database, verify_embedder
    from kenning.storage.db.migrate import head_revision
    from kenning.storage.db.pool import create_pool
    from kenning.storage.embedders.factory import create_embedder
    from kenning.storage.models.factory import create_model_client

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    pool = await create_pool(settings)
    redis = aioredis.from_url(settings.redis_url)
    # With router backends configured, the ollama embedder and the model calls (extraction)
    # go through a router of this process (state shared with the server's through Redis),
    # never straight to Ollama.
    routing = contextlib.AsyncExitStack()
    router = await routing.enter_async_context(
        running_router(router_app_for(settings) if settings.router.has_backends else None)
    )
    embedder = create_embedder(settings, router=router)
    models = create_model_client(settings, router=router)
    runtime: Runtime | None = None
    try:
        async with pool.acquire() as conn:
            await verify_database(conn, settings, head_revision(settings))
            await verify_embedder(conn, embedder.model, embedder.dimension)
        warm_up = getattr(embedder, "warm_up", None)
        if warm_up is not None:
            await warm_up()
        runtime = Runtime(
            settings=settings,
            pool=pool,
            redis=redis,
            embedder=embedder,
            router=router,
            models=models,
        )
        workers = await runtime.queue.start_workers(runtime.job_deps(), count)
        log_event(logger, "worker.process.started", workers=[w.id for w in workers])
        await stop.wait()
    finally:
        if runtime is not None:
            await runtime.queue.aclose()
        await embedder.aclose()
        await models.aclose()
        await routing.aclose()
        await redis.aclose()
        await pool.close()
        log_event(logger, "worker.process.stopped")


def valid_processes(value: int) -> int:
    """Option callback: a count of worker processes, 1 to ``MAX_PROCESSES``."""
    if not 1 <= value <= MAX_PROCESSES:
        raise typer.BadParameter(f"{value} processes: give 1 to {MAX_PROCESSES}")
    return value


def worker_command(
    count: Annotated[
        int,
        typer.Option(
            metavar="N",
            callback=at_least_one,
            help="Workers in this process; each runs KENNING_QUEUE_PRIORITY_SLOTS priority and "
            "KENNING_QUEUE_BULK_SLOTS bulk jobs at a time.",
        ),
    ] = 1,
    processes: Annotated[
        int,
        typer.Option(
            metavar="N",
            callback=valid_processes,
            help=f"Processes (1 to {MAX_PROCESSES}), each running --count workers: one Python "
            "process uses one core.",
        ),
    ] = 1,
) -> None:
    """Run ingestion queue workers without an HTTP server, until SIGTERM or Ctrl-C.

    They take jobs from the database of KENNING_DATABASE_URL (after the same checks as
    kenning serve) and embed with the configured embedder, through a router of their own
    when KENNING_ROUTER_* backends are set.
    """
    from kenning.app import preflight

    settings = Settings()
    configure_logging(settings.log_level, as_json=settings.log_as_json)
    asyncio.run(preflight(settings))
    if processes == 1:
        asyncio.run(run_worker(settings, count))
    elif not run_processes(count, processes):
        raise typer.Exit(code=ExitCode.FAILED)


def run_processes(count: int, processes: int) -> bool:
    """Run ``processes`` worker processes until SIGTERM or Ctrl-C (True), or until one of
    them dies (False: the others are stopped, so a supervisor sees the failure)."""
    # Spawned, not forked: a child starts with no pool, loop or model of this process.
    spawn = multiprocessing.get_context("spawn")
    children = [
        spawn.Process(target=_worker_process, args=(count,), name=f"kenning-worker-{n}")
        for n in range(processes)
    ]
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    for child in children:
        child.start()
    log_event(logger, "worker.processes.started", processes=[c.pid for c in children])
    while not stop.wait(0.5):
        if any(not child.is_alive() for child in children):
            break
    died = [child.pid for child in children if not child.is_alive()] if not stop.is_set() else []
    for child in children:
        if child.is_alive():
            child.terminate()  # SIGTERM: the worker finishes its loop and closes its pools
    for child in children:
        child.join(30)
        if child.is_alive():
            child.kill()
            child.join()
    log_event(logger, "worker.processes.stopped", died=died)
    return not died


def _worker_process(count: int) -> None:
    # Settings again from the environment the parent was started with.
    settings = Settings()
    configure_logging(settings.log_level, as_json=settings.log_as_json)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_worker(settings, count))
