"""``kenning router``: the model router alone on its own port, for any Ollama client."""

from __future__ import annotations

from typing import Annotated

import typer

from kenning.settings import Settings

NO_REDIS = "none"


def router_command(
    host: Annotated[str | None, typer.Option(help="Bind address [KENNING_ROUTER_HOST].")] = None,
    port: Annotated[
        int | None, typer.Option(help="TCP port [KENNING_ROUTER_PORT, default 11430].")
    ] = None,
    redis_url: Annotated[
        str | None,
        typer.Option(
            help="Redis for state shared with other Kenning processes [KENNING_ROUTER_REDIS_URL, "
            f"else KENNING_REDIS_URL]; '{NO_REDIS}' keeps it in this process."
        ),
    ] = None,
) -> None:
    """Serve the Ollama API (``/api/*``) and ``/router/*`` in front of the configured
    backends (KENNING_ROUTER_GPU_BACKENDS, KENNING_ROUTER_CPU_BACKEND)."""
    import uvicorn

    from kenning.logs import configure_logging
    from kenning.router import create_router_app
    from kenning.router_mount import state_redis_url

    settings = Settings()
    config = settings.router
    if not config.has_backends:
        typer.secho(
            "error: no backend configured: set KENNING_ROUTER_GPU_BACKENDS (JSON list of "
            '{"name", "url", "vram_budget_mb"}) and/or KENNING_ROUTER_CPU_BACKEND',
            fg=typer.colors.RED,
            err=True,
        )
        raise typer.Exit(code=2)
    state = redis_url or state_redis_url(settings)
    configure_logging(settings.log_level, as_json=settings.log_json)
    app = create_router_app(config, redis_url=None if state == NO_REDIS else state)
    uvicorn.run(
        app,
        host=host or config.host,
        port=config.port if port is None else port,
        log_config=None,
        # Every request pays for these: uvloop and httptools are the fast pair, and access
        # lines would be one log record per model call (the router's metrics count them).
        loop="uvloop",
        http="httptools",
        access_log=False,
        lifespan="on",
    )
