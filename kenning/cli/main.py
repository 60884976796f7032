"""``kenning``: the command line. One module per command group; this one assembles them."""

from __future__ import annotations

from typing import Annotated

import typer

from kenning import __version__
from kenning.cli.crawl import crawl_command
from kenning.cli.exit_codes import epilog
from kenning.cli.group import KenningGroup, PlainCommand
from kenning.cli.ingest_files import ingest_command
from kenning.cli.ingest_repo import ingest_repo_command
from kenning.cli.keys import keys_app
from kenning.cli.mcp_stdio import mcp_command
from kenning.cli.migrate import migrate_command
from kenning.cli.projects import projects_app
from kenning.cli.router import router_app
from kenning.cli.schema import schema_command
from kenning.cli.serve import serve_command
from kenning.cli.stack import stack_app
from kenning.cli.worker import worker_command

EPILOG = (
    "Settings come from KENNING_* environment variables, or from a .env file in the current "
    "directory; each option says which variable it stands for. " + epilog()
)

app = typer.Typer(
    cls=KenningGroup,
    no_args_is_help=True,
    add_completion=False,
    # Plain click help: no rich panels, no type column, docstrings shown as written.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    epilog=EPILOG,
    # Inherited by every command and group below.
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"kenning {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    """Kenning: a GraphQL knowledge server for AI agents.

    First time: kenning stack up (local PostgreSQL and Redis), kenning migrate, then
    kenning serve.
    """


app.command("serve", short_help="Run the GraphQL server.")(serve_command)
app.command(
    "migrate", cls=PlainCommand, short_help="Apply (or roll back) the database migrations."
)(migrate_command)
app.command("worker", short_help="Run ingestion queue workers without an HTTP server.")(
    worker_command
)
app.command(
    "ingest", cls=PlainCommand, short_help="Ingest files and folders through a running server."
)(ingest_command)
app.command(
    "ingest-repo", cls=PlainCommand, short_help="Ingest a git repository's code through a server."
)(ingest_repo_command)
app.command("crawl", cls=PlainCommand, short_help="Crawl a web site through a running server.")(
    crawl_command
)
app.command(
    "mcp", cls=PlainCommand, short_help="Serve the MCP tools on stdio, forwarding to a server."
)(mcp_command)
app.add_typer(
    router_app, name="router", short_help="Run the model router alone, or fake backends (demo)."
)
app.add_typer(keys_app, name="keys", short_help="Create, list and revoke API keys.")
app.add_typer(projects_app, name="projects", short_help="Show and move projects between groups.")
app.add_typer(stack_app, name="stack", short_help="Run the local PostgreSQL and Redis.")
app.command("schema", short_help="Print the GraphQL schema, or check a copy for drift.")(
    schema_command
)
