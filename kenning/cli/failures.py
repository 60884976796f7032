"""One line on stderr for the failures a user can fix, instead of a traceback.

`explain(error)` recognises, anywhere in an exception's cause chain:

- a bad setting (pydantic's ``ValidationError`` or pydantic-settings' ``SettingsError``),
  named by its ``KENNING_*`` variable: ``KENNING_PORT: Input should be a valid integer
  (got 'abc')``;
- a database that does not exist, a PostgreSQL server that cannot be reached (exit 3) or
  refuses the user (exit 4), a Redis that cannot be reached (exit 3), each with the fix;
- any other ``KenningError`` (``ConfigurationError`` above all; a client command's
  `UpstreamError` with its own exit code) or Alembic ``CommandError`` (an unknown revision):
  its message.

Anything else is a bug and keeps its traceback. `kenning.cli.group.KenningGroup` calls it for
every command, so commands raise and never print their own ``error:`` lines.
"""

from __future__ import annotations

import re
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pydantic
from pydantic_settings import BaseSettings, SettingsError

from kenning.cli.exit_codes import ExitCode
from kenning.cli.options import env_name
from kenning.domain.errors import KenningError
from kenning.router import RouterSettings
from kenning.settings import Settings

FAILED = ExitCode.FAILED
BAD_SETTING = ExitCode.USAGE
UNREACHABLE = ExitCode.UNREACHABLE
_SETTINGS_MODELS: tuple[type[BaseSettings], ...] = (Settings, RouterSettings)
_PARSE_SUFFIX = re.compile(r", unable to parse string as an? \w+$")
_SOURCE_FIELD = re.compile(r'field "(\w+)"')
_LOCAL_FIX = "kenning stack up {} the local one"


@dataclass(frozen=True, slots=True)
class Failure:
    """What to print after ``error:`` and the exit code."""

    message: str
    exit_code: ExitCode = FAILED


def explain(error: BaseException) -> Failure | None:
    """The one-line explanation of ``error``, or None when it is not a known failure."""
    chain = list(_chain(error))
    for link in chain:
        failure = _connection_failure(link)
        if failure is not None:
            return failure
    for link in chain:
        if isinstance(link, pydantic.ValidationError):
            message = setting_problem(link)
            if message is not None:
                return Failure(message, BAD_SETTING)
        if isinstance(link, SettingsError):
            return Failure(_unparsable_setting(link), BAD_SETTING)
    for link in chain:
        if isinstance(link, KenningError):
            return Failure(link.message, getattr(link, "exit_code", FAILED))
        if _alembic_error(link):  # an unknown revision, above all
            return Failure(_sentence(link))
    return None


def _alembic_error(link: BaseException) -> bool:
    """Alembic's ``CommandError``: only a command that imported Alembic can raise one, and
    importing it to ask would cost every other failing command most of a second."""
    util = sys.modules.get("alembic.util")
    return util is not None and isinstance(link, util.CommandError)


def setting_problem(error: pydantic.ValidationError) -> str | None:
    """``KENNING_X: what is wrong (got 'value')`` for each error, joined on one line."""
    model = next((m for m in _SETTINGS_MODELS if m.__name__ == error.title), None)
    if model is None:
        return None
    return "; ".join(_one_problem(model, item) for item in error.errors(include_url=False))


def _one_problem(model: type[BaseSettings], item: Any) -> str:
    field, *inner = item["loc"]
    where = env_name(model, str(field)) + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in inner
    )
    message = _PARSE_SUFFIX.sub("", str(item["msg"]).removeprefix("Value error, "))
    given = item.get("input")
    if isinstance(given, str | int | float) and not isinstance(given, bool):
        text = repr(given) if len(repr(given)) <= 60 else repr(given)[:57] + "...'"
        message += f" (got {text})"
    return f"{where}: {message}"


def _unparsable_setting(error: SettingsError) -> str:
    # pydantic-settings decodes list and object settings as JSON before validating them.
    match = _SOURCE_FIELD.search(str(error))
    field = match.group(1) if match else "?"
    model = next((m for m in _SETTINGS_MODELS if field in m.model_fields), Settings)
    cause = error.__cause__
    reason = f"not valid JSON ({cause})" if cause else str(error)
    return f"{env_name(model, field)}: {reason}"


def _connection_failure(error: BaseException) -> Failure | None:
    import asyncpg
    import redis.exceptions

    if isinstance(error, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return Failure(
            f"cannot reach Redis ({_sentence(error)}): start it "
            f"({_LOCAL_FIX.format('starts')}) or set KENNING_REDIS_URL",
            UNREACHABLE,
        )
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        name, address = _database()
        return Failure(
            f'database "{name}" does not exist on {address}: create it '
            f"({_LOCAL_FIX.format('creates')}) or set KENNING_DATABASE_URL"
        )
    if isinstance(
        error, asyncpg.InvalidAuthorizationSpecificationError | asyncpg.InvalidPasswordError
    ):
        _, address = _database()
        return Failure(
            f"PostgreSQL on {address} refused the connection ({_sentence(error)}): fix the "
            "user or password in KENNING_DATABASE_URL",
            ExitCode.REFUSED,
        )
    if isinstance(error, asyncpg.CannotConnectNowError):
        _, address = _database()
        return Failure(
            f"PostgreSQL on {address} is starting or stopping: try again shortly", UNREACHABLE
        )
    network = isinstance(error, ConnectionError | TimeoutError | socket.gaierror)
    if network and _raised_within(error, "asyncpg"):
        # asyncpg raises the socket's own error (Redis and httpx wrap theirs).
        _, address = _database()
        if isinstance(error, socket.gaierror):
            host = address.rsplit(":", 1)[0]
            return Failure(
                f"unknown host {host}: fix the host in KENNING_DATABASE_URL", UNREACHABLE
            )
        return Failure(
            f"cannot reach PostgreSQL on {address} ({_reason(error)}): start it "
            f"({_LOCAL_FIX.format('starts')}) or set KENNING_DATABASE_URL",
            UNREACHABLE,
        )
    return None


def _database() -> tuple[str, str]:
    """Name and ``host:port`` of the configured database (never its password)."""
    try:
        url = Settings().database_url
    except (pydantic.ValidationError, SettingsError):
        url = Settings.model_fields["database_url"].default
    parts = urlsplit(url)
    return parts.path.lstrip("/") or "postgres", f"{parts.hostname}:{parts.port or 5432}"


def _reason(error: BaseException) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return "unknown host"
    if isinstance(error, TimeoutError):
        return "timed out"
    return _sentence(error)


def _sentence(error: BaseException) -> str:
    return " ".join(str(error).split()).rstrip(".") or type(error).__name__


def _raised_within(error: BaseException, package: str) -> bool:
    """Whether a frame of ``package`` is on the error's traceback."""
    trace = error.__traceback__
    while trace is not None:
        module = str(trace.tb_frame.f_globals.get("__name__", ""))
        if module == package or module.startswith(package + "."):
            return True
        trace = trace.tb_next
    return False


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, what it wraps (SQLAlchemy's ``orig``), its causes and contexts."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        link = pending.pop(0)
        if link is None or id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        orig = getattr(link, "orig", None)
        pending += [orig if isinstance(orig, BaseException) else None]
        pending += [link.__cause__, link.__context__]
