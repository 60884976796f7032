"""``kenning stack``: the local PostgreSQL (AGE, pgvector) and Redis, for development."""

from __future__ import annotations

from urllib.parse import urlsplit

import typer

from kenning.cli.exit_codes import ExitCode
from kenning.cli.localstack import LocalStack, StackConfig, StackStatus
from kenning.cli.options import default_of, env_name
from kenning.settings import Settings
from kenning.storage.db.database_url import database_name

NOT_RUNNING = ExitCode.UNREACHABLE


def _where(field: str) -> str:
    return f"{env_name(Settings, field)} (default {default_of(Settings, field)})"


stack_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help=(
        "The local PostgreSQL 17 (with AGE and pgvector) and Redis, run from a Debian root "
        "on loopback ports. Needs root the first time (it installs the packages).\n\n"
        f"Where: {_where('stack_dir')}; ports {_where('stack_pg_port')} and "
        f"{_where('stack_redis_port')}. up also creates the database KENNING_DATABASE_URL "
        "names, and reserves huge pages for PostgreSQL's shared memory (vm.nr_hugepages; "
        f"down gives them back; {_where('stack_huge_pages')})."
    ),
)


def _stack(settings: Settings) -> LocalStack:
    config = StackConfig(
        directory=settings.stack_dir,
        pg_port=settings.stack_pg_port,
        redis_port=settings.stack_redis_port,
        mirror=settings.stack_mirror,
        suite=settings.stack_suite,
        databases=(database_name(settings.database_url),),
        huge_pages=settings.stack_huge_pages,
    )
    return LocalStack(config, say=lambda line: typer.echo(line, err=True))


@stack_app.command("up")
def stack_up() -> None:
    """Start the stack, setting it up the first time; quick and harmless when it is up."""
    settings = Settings()
    _print_status(_stack(settings).up(), settings)


@stack_app.command("down")
def stack_down() -> None:
    """Stop the local servers cleanly; the data is kept."""
    _stack(Settings()).down()


@stack_app.command("status")
def stack_status() -> None:
    """Print versions and URLs; exit code 3 when a server is not running."""
    settings = Settings()
    status = _stack(settings).status()
    _print_status(status, settings)
    if not (status.postgres_running and status.redis_running):
        raise typer.Exit(code=NOT_RUNNING)


def _print_status(status: StackStatus, settings: Settings) -> None:
    state = {True: "running", False: "stopped"}
    typer.echo(f"postgres  {state[status.postgres_running]:8} {status.postgres_url}")
    # The database Kenning itself uses (never the URL: it may hold a password).
    typer.echo(f"  kenning database {database_name(settings.database_url)} (KENNING_DATABASE_URL)")
    typer.echo(f"  version {status.postgres_version or '-'}")
    typer.echo(f"  age     {status.age_version or '-'}")
    typer.echo(f"  vector  {status.pgvector_version or '-'}")
    typer.echo(f"  huge pages {status.huge_pages or '-'}")
    typer.echo(f"redis     {state[status.redis_running]:8} {status.redis_url}")
    redis_db = urlsplit(settings.redis_url).path.strip("/") or "0"
    typer.echo(f"  kenning database {redis_db} (KENNING_REDIS_URL)")
    typer.echo(f"  version {status.redis_version or '-'}")
