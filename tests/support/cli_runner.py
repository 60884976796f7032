"""The ``kenning`` command run in process, with a controlled environment."""

from __future__ import annotations

import os

import typer
from typer.testing import CliRunner

from kenning.cli.main import app


def run(*args: str, **env: str) -> typer.testing.Result:
    """``kenning args`` with only the given ``KENNING_*`` variables set."""
    clean: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KENNING_")}
    return CliRunner().invoke(app, list(args), env={**clean, **env})
