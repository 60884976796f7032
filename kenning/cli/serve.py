"""``kenning serve``: the GraphQL server under uvicorn."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from kenning.cli.migrate import print_migrated
from kenning.cli.options import setting_help, valid_port
from kenning.settings import Settings


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
    import uvicorn

    from kenning.app import create_app, preflight
    from kenning.storage.db.migrate import run_upgrade

    given = {"host": host, "port": port}  # both checked by click already
    settings = Settings().model_copy(
        update={name: value for name, value in given.items() if value is not None}
    )
    if migrate_first or settings.migrate_on_start:
        print_migrated(run_upgrade(settings, "head"), err=True)
    asyncio.run(preflight(settings))
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        ws="websockets-sansio",
        ws_per_message_deflate=settings.ws_per_message_deflate,
        lifespan="on",
    )
