"""``kenning serve``: the GraphQL server under uvicorn, in one process or several.

With ``--workers N`` uvicorn binds the port once and spawns N processes that accept on it;
each builds its app with ``kenning.app:app_from_environment`` from the environment this
process leaves (the options given here included) and sums its metrics with the others in a
directory made for this run (removed at exit).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import shutil
import socket
import tempfile
from typing import Annotated, Any

import typer

from kenning.cli.migrate import print_migrated
from kenning.cli.options import setting_help, valid_port
from kenning.domain.errors import ConfigurationError
from kenning.logs import configure_logging, log_event
from kenning.settings import Settings

logger = logging.getLogger("kenning.app")
# More server processes than this is a typo, not a deployment: each opens its own pools.
MAX_WORKERS = 64


def valid_workers(value: int) -> int:
    """Option callback: a count of server processes, 1 to ``MAX_WORKERS``."""
    if not 1 <= value <= MAX_WORKERS:
        raise typer.BadParameter(f"{value} server processes: give 1 to {MAX_WORKERS}")
    return value


def serve_command(
    host: Annotated[
        str | None,
        typer.Option(metavar="HOST", help=setting_help("Address to listen on", "host")),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            metavar="PORT", callback=valid_port, help=setting_help("TCP port to listen on", "port")
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            metavar="N",
            callback=valid_workers,
            help=f"Server processes on the one port (1 to {MAX_WORKERS}); each runs its own "
            "database pool, router and KENNING_QUEUE_WORKERS queue workers.",
        ),
    ] = 1,
    migrate_first: Annotated[
        bool,
        typer.Option(
            "--migrate",
            help=setting_help("Apply pending migrations before serving", "migrate_on_start"),
        ),
    ] = False,
) -> None:
    """Run the GraphQL server (/graphql, /healthz, /readyz, /metrics) until Ctrl-C.

    It checks the database first (reachable, migrated, same embedding model) and stops
    with one line saying what to fix when it is not.
    """
    given = {"host": host, "port": port}  # both checked by click already
    settings = Settings().model_copy(
        update={name: value for name, value in given.items() if value is not None}
    )
    check_port(settings.host, settings.port)  # before the imports: the app's take seconds
    # Before uvicorn's first line and the MCP SDK's logging set-up: one format per process.
    configure_logging(settings.log_level, as_json=settings.log_as_json)
    import uvicorn

    from kenning.app import create_app, preflight
    from kenning.storage.db.migrate import run_upgrade

    if migrate_first or settings.migrate_on_start:
        print_migrated(run_upgrade(settings, "head"), err=True)
    asyncio.run(preflight(settings))
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_config": None,
        "ws": "websockets-sansio",
        "ws_per_message_deflate": settings.ws_per_message_deflate,
        "lifespan": "on",
    }
    if workers == 1:
        uvicorn.run(create_app(settings), **options)
    else:
        serve_processes(settings, workers, options)


def check_port(host: str, port: int) -> None:
    """``ConfigurationError`` when ``host:port`` cannot be listened on, found before the
    database is checked or the model loaded (uvicorn would find it only after both). Bound
    as uvicorn binds (``SO_REUSEADDR``), so a port a stopped server left is no error."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            why = "is in use" if error.errno == errno.EADDRINUSE else f"cannot be used ({error})"
            raise ConfigurationError(
                f"port {port} on {host} {why}: stop what listens there, or give another "
                "with --port or KENNING_PORT"
            ) from None


def serve_processes(settings: Settings, workers: int, options: dict[str, Any]) -> None:
    """Run ``workers`` server processes on one port until SIGTERM or Ctrl-C."""
    import uvicorn

    from kenning.app import MULTIPROCESS_DIR

    # The parent's own lines (a worker died and was replaced) in the server's log format.
    configure_logging(settings.log_level, as_json=settings.log_as_json)
    # A fresh directory per run: files left by an earlier run would be summed into this one's.
    shared = tempfile.mkdtemp(prefix="kenning-metrics-")
    # The workers are spawned, not forked: they read everything from the environment.
    os.environ.update(
        {
            "KENNING_HOST": settings.host,
            "KENNING_PORT": str(settings.port),
            MULTIPROCESS_DIR: shared,
        }
    )
    log_event(logger, "server.workers", workers=workers, metrics_dir=shared)
    try:
        uvicorn.run(
            "kenning.app:app_from_environment",
            factory=True,
            workers=workers,
            **options,
        )
    finally:
        shutil.rmtree(shared, ignore_errors=True)
