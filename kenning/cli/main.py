"""``kenning``: serve, migrate, manage the local stack, export the schema."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from kenning.cli.keys import keys_app
from kenning.cli.localstack import LocalStack, StackConfig, StackStatus
from kenning.cli.router import router_command
from kenning.cli.worker import worker_command
from kenning.domain.errors import ConfigurationError
from kenning.settings import Settings
from kenning.storage.database_url import database_name

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
stack_app = typer.Typer(no_args_is_help=True, help="The local PostgreSQL + AGE + pgvector + Redis.")
app.add_typer(stack_app, name="stack")
app.add_typer(keys_app, name="keys")
app.command("worker")(worker_command)
app.command("router")(router_command)


def _fail(error: Exception) -> typer.Exit:
    typer.secho(f"error: {error}", fg=typer.colors.RED, err=True)
    return typer.Exit(code=1)


def _stack(settings: Settings) -> LocalStack:
    config = StackConfig(
        directory=settings.stack_dir,
        pg_port=settings.stack_pg_port,
        redis_port=settings.stack_redis_port,
        mirror=settings.stack_mirror,
        suite=settings.stack_suite,
        databases=(database_name(settings.database_url),),
    )
    return LocalStack(config, say=lambda line: typer.echo(line, err=True))


@stack_app.command("up")
def stack_up() -> None:
    """Provision (first time) and start the local stack; fast and unchanged when up."""
    stack = _stack(Settings())
    try:
        status = stack.up()
    except ConfigurationError as error:
        raise _fail(error) from error
    _print_status(status)


@stack_app.command("down")
def stack_down() -> None:
    """Stop the local servers cleanly (data is kept)."""
    stack = _stack(Settings())
    try:
        stack.down()
    except ConfigurationError as error:
        raise _fail(error) from error


@stack_app.command("status")
def stack_status() -> None:
    """Print versions and URLs of the local stack."""
    stack = _stack(Settings())
    status = stack.status()
    _print_status(status)
    if not (status.postgres_running and status.redis_running):
        raise typer.Exit(code=3)


def _print_status(status: StackStatus) -> None:
    state = {True: "running", False: "stopped"}
    typer.echo(f"postgres  {state[status.postgres_running]:8} {status.postgres_url}")
    typer.echo(f"  version {status.postgres_version or '-'}")
    typer.echo(f"  age     {status.age_version or '-'}")
    typer.echo(f"  vector  {status.pgvector_version or '-'}")
    typer.echo(f"redis     {state[status.redis_running]:8} {status.redis_url}")
    typer.echo(f"  version {status.redis_version or '-'}")


@app.command()
def migrate(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
    downgrade: Annotated[bool, typer.Option(help="Downgrade to the revision instead.")] = False,
) -> None:
    """Apply (or roll back) the database migrations."""
    from kenning.storage.migrate import run_downgrade, run_upgrade

    settings = Settings()
    try:
        if downgrade:
            run_downgrade(settings, revision)
        else:
            run_upgrade(settings, revision)
    except ConfigurationError as error:
        raise _fail(error) from error


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address.")] = None,
    port: Annotated[int | None, typer.Option(help="TCP port.")] = None,
    migrate_first: Annotated[
        bool, typer.Option("--migrate", help="Apply migrations before serving.")
    ] = False,
) -> None:
    """Run the GraphQL server with uvicorn."""
    import uvicorn

    from kenning.app import create_app, preflight
    from kenning.storage.migrate import run_upgrade

    overrides: dict[str, object] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    settings = Settings(**overrides)  # type: ignore[arg-type]
    try:
        if migrate_first or settings.migrate_on_start:
            run_upgrade(settings, "head")
        asyncio.run(preflight(settings))
    except ConfigurationError as error:
        raise _fail(error) from error
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        ws="websockets-sansio",
        lifespan="on",
    )


@app.command()
def schema(
    check: Annotated[
        Path | None, typer.Option(help="Compare with this SDL file; exit 1 on drift.")
    ] = None,
) -> None:
    """Print the GraphQL SDL (or check a committed copy for drift)."""
    from kenning.schema.build import build_schema

    sdl = build_schema().as_str() + "\n"
    if check is None:
        sys.stdout.write(sdl)
        return
    if not check.exists() or check.read_text() != sdl:
        typer.secho(
            f"{check} is out of date: run `kenning schema > {check}`", fg=typer.colors.RED, err=True
        )
        raise typer.Exit(code=1)
    typer.echo(f"{check} matches the schema")
