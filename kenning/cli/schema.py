"""``kenning schema``: print the GraphQL SDL, or check a committed copy for drift."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kenning.cli.exit_codes import ExitCode
from kenning.cli.group import report


def schema_command(
    check: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="An SDL file to compare the schema with; exit code 1 when they differ "
            "[default: none, print the schema].",
        ),
    ] = None,
) -> None:
    """Print the GraphQL schema (SDL), or check a committed copy for drift."""
    from kenning.schema.build import build_schema

    sdl = build_schema().as_str() + "\n"
    if check is None:
        sys.stdout.write(sdl)
        return
    if not check.exists() or check.read_text() != sdl:
        raise report(f"{check} is out of date: run `kenning schema > {check}`", ExitCode.FAILED)
    typer.echo(f"{check} matches the schema")
