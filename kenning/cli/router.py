"""``kenning router``: the model router alone on its own port, for any Ollama client;
``kenning router demo``: fake backends to try it with."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from kenning.cli.exit_codes import ExitCode
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

ANONYMOUS = "anonymous callers may control the router"
NO_KEYS = (
    "kenning router takes no API keys: anyone who reaches its port could run models at "
    "priority 0 and swap the GPU's model set. Pass --allow-anonymous on a trusted network, "
    "or use kenning serve, which mounts the same router (/ollama, /router) behind API keys"
)
logger = logging.getLogger("kenning.router.cli")

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
    allow_anonymous: Annotated[
        bool,
        typer.Option(
            "--allow-anonymous",
            help="Serve without API keys: every caller may use any priority, announce and "
            "release; for a trusted network only [default: off, refuse to start]",
            show_default=False,
        ),
    ] = False,
) -> None:
    """Serve the Ollama API (/api/*) and the router's own endpoints (/router/status,
    /router/metrics, /router/events, /router/announce, /router/release) in front of the
    backends of KENNING_ROUTER_GPU_BACKENDS and KENNING_ROUTER_CPU_BACKEND.

    Priority comes from the X-Ollama-Priority header (0 interactive ... 3 background) or
    the model name. This is an operator tool without API keys, so it starts only with
    --allow-anonymous: every caller may claim priority 0 and announce, and /router/status
    shows the backend URLs to anyone who can reach the port; keep it on loopback or a
    trusted network. kenning serve mounts the same router behind API keys (announce and
    priority 0 for agent and admin keys, backend URLs for admin keys only).
    """
    if ctx.invoked_subcommand is not None:
        return
    _serve_router(host, port, redis_url, allow_anonymous=allow_anonymous)


def _serve_router(
    host: str | None, port: int | None, redis_url: str | None, *, allow_anonymous: bool
) -> None:
    import uvicorn

    from kenning.logs import configure_logging, log_event
    from kenning.router import create_router_app, open_gate
    from kenning.router_mount import state_redis_url

    # Configuration first: a bad setting or a missing backend is what to fix before
    # deciding how the router may be reached.
    settings = Settings()
    config = settings.router
    if not config.has_backends:
        raise report(NO_BACKEND, ExitCode.USAGE)
    if not allow_anonymous:
        raise report(NO_KEYS, ExitCode.USAGE)
    state = redis_url or state_redis_url(settings)
    configure_logging(settings.log_level, as_json=settings.log_as_json)
    # Loud on purpose: a terminal shows the line whatever the log format, and the log keeps
    # the event for whoever reads it later.
    typer.secho(f"warning: {ANONYMOUS} (--allow-anonymous)", fg=typer.colors.YELLOW, err=True)
    log_event(logger, "router.anonymous", logging.WARNING, detail=ANONYMOUS)
    app = create_router_app(
        config,
        redis_url=None if state == NO_REDIS else state,
        gate=open_gate,
        max_body_bytes=settings.max_request_bytes,
    )
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
