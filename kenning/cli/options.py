"""Shared pieces of options: help text of options that stand for a setting (what it does,
its default, its variable) and the port check.

Example: ``setting_help("TCP port to listen on", "port")`` is
``"TCP port to listen on [default: 8000; env KENNING_PORT]"``.
"""

from __future__ import annotations

import os
from enum import Enum
from typing import Annotated

import typer
from pydantic_settings import BaseSettings

from kenning.settings import Settings


def env_name(model: type[BaseSettings], field: str) -> str:
    """The variable that sets ``field`` of a settings model: ``KENNING_PORT``."""
    return f"{model.model_config.get('env_prefix', '')}{field}".upper()


def default_of(model: type[BaseSettings], field: str) -> str:
    """A setting's built-in default as a user would write it in the variable."""
    value = model.model_fields[field].get_default(call_default_factory=True)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Enum):
        return str(value.value)
    return "unset" if value is None else str(value)


def setting_help(
    text: str, field: str, model: type[BaseSettings] = Settings, *, default: str | None = None
) -> str:
    """``text`` followed by ``[default: ...; env KENNING_...]`` for ``model.field``."""
    shown = default_of(model, field) if default is None else default
    return f"{text} [default: {shown}; env {env_name(model, field)}]"


def valid_port(value: int | None) -> int | None:
    """Option callback: a TCP port, 0 to 65535 (0 picks a free one)."""
    if value is not None and not 0 <= value <= 65535:
        raise typer.BadParameter(f"{value} is not a TCP port (0 to 65535)")
    return value


def at_least_one(value: int) -> int:
    """Option callback: a count of 1 or more."""
    if value < 1:
        raise typer.BadParameter(f"{value} is less than 1")
    return value


# The options of the commands that call a running server (ingest, ingest-repo, crawl, mcp).
SERVER = "http://127.0.0.1:8000"
ServerUrl = Annotated[str, typer.Option(metavar="URL", help="The running server.")]
ApiKey = Annotated[
    str | None, typer.Option(metavar="KEY", help="An agent key [default: $KENNING_API_KEY].")
]


def api_key_of(given: str | None) -> str:
    """``--api-key``, else ``KENNING_API_KEY``; a usage error naming both when neither is set."""
    key = given or os.environ.get("KENNING_API_KEY")
    if not key:
        raise typer.BadParameter("no API key: give --api-key or set KENNING_API_KEY")
    return key
