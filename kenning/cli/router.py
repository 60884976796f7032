"""``kenning router``: the model router alone on its own port, for any Ollama client;
``kenning router demo``: fake backends to try it with."""

from __future__ import annotations

from typing import Annotated

import typer

from kenning.cli.group import report
from kenning.cli.options import env_name, setting_help, valid_port
from kenning.cli.router_demo import demo_command
from kenning.router import RouterSettings
from kenning.settings import Settings

NO_REDIS = "none"
NO_BACKEND = (
    "no backend configured: set KENNING_ROUTER_GPU_BACKENDS (a JSON list of "
    '{"name", "url", "vram_budget_mb"}) and/or KENNING_ROUTER_CPU_BACKEND; '
    "kenning router demo starts fake ones"
)

router_app = typer.Typer(invoke_without_command=True, rich_markup_mode=None)
router_app.command("demo", short_help="Start fake GPU and CPU Ollama backends to try it with.")(
    demo_command
)


@router_app.callback()
def router_command(
    ctx: typer.Context,
    host: Annotated[
        str | None,
        typer.Option(
            metavar="HOST", help=setting_help("Address to listen on", "host", RouterSettings)
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            metavar="PORT",
            callback=valid_port,
            help=setting_help("TCP port to listen on", "port", RouterSettings),
        ),
    ] = None,
    redis_url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help=setting_help(
                "Redis that shares router state (model sets, leases) with other Kenning "
                f"processes; '{NO_REDIS}' keeps it in this process",
                "redis_url",
                RouterSettings,
                default=f"the value of {env_name(Settings, 'redis_url')}",
            ),
        ),
    ] = None,
) -> None:
    """Serve the Ollama API (/api/*) and the router's own endpoints (/router/status,
    /router/metrics, /router/events, /router/announce, /router/release) in front of the
    backends of KENNING_ROUTER_GPU_BACKENDS and KENNING_ROUTER_CPU_BACKEND.

    Priority comes from the X-Ollama-Priority header (0 interactive ... 3 background) or
    the model name. This is an operator tool without API keys: /router/status shows the
    backend URLs to anyone who can reach the port, so keep it on loopback or behind a proxy
    (kenning serve mounts the same router and shows URLs to admin keys only).
    """
    if ctx.invoked_subcommand is not None:
        return
    import uvicorn

    from kenning.logs import configure_logging
    from kenning.router import create_router_app
    from kenning.router_mount import state_redis_url

    settings = Settings()
    config = settings.router
    if not config.has_backends:
        raise report(NO_BACKEND, 2)
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
