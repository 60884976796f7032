"""`UpstreamError`: a Kenning server the client commands (``ingest``, ``ingest-repo``,
``crawl``, ``mcp``) cannot use, with the exit code it ends the command with.

``calling(url, option)`` wraps a command's calls; what httpx or kenning-client raise becomes
one of three lines, each naming the fix:

- not an http(s) URL: ``--url nonsense: not an http:// or https:// URL`` (exit 2);
- no answer: ``cannot reach a Kenning server at URL (...): start one (kenning serve) or give
  its URL with --url`` (exit 3);
- the key refused: ``the server at URL refused the API key: the API key is not valid ...;
  give a valid one with --api-key or KENNING_API_KEY`` (exit 4).

``refused(member)`` does the same for a request the server answers with an error member.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Protocol

import httpx
import typer

from kenning.cli.exit_codes import ExitCode
from kenning.domain.errors import KenningError

KEY_FIX = "give a valid one with --api-key or KENNING_API_KEY"


class UpstreamError(KenningError):
    """The Kenning server cannot be used: unreachable, or it refuses the key."""

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.FAILED) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def unreachable(url: str, why: str, option: str = "--url") -> UpstreamError:
    """The server at ``url`` did not answer (``why``: the transport's reason)."""
    return UpstreamError(
        f"cannot reach a Kenning server at {url} ({why}): start one (kenning serve) or give "
        f"its URL with {option}",
        ExitCode.UNREACHABLE,
    )


def refused_key(url: str, why: str | None = None) -> UpstreamError:
    """The server at ``url`` refused the API key (``why``: its own message, when it gave one)."""
    because = f": {why}" if why else ""
    return UpstreamError(
        f"the server at {url} refused the API key{because}; {KEY_FIX}", ExitCode.REFUSED
    )


def http_status(url: str, response: httpx.Response) -> UpstreamError:
    """An answer other than GraphQL's: a refused key (401, 403) or not a Kenning server."""
    if response.status_code in (401, 403):
        return refused_key(url, _server_message(response))
    return UpstreamError(
        f"{url} answered HTTP {response.status_code}: is it a Kenning server? give its URL",
        ExitCode.FAILED,
    )


class Refusal(Protocol):
    """An error member of a mutation's result union (kenning-client's ``ErrorFields``)."""

    @property
    def code(self) -> object: ...
    @property
    def message(self) -> str: ...
    @property
    def field(self) -> str | None: ...


def refused(refusal: Refusal) -> Exception:
    """The exception a refused request ends the command with: a usage error naming the field
    of a bad argument, `UpstreamError` (exit 4) for what the key may not do, else exit 1."""
    if refusal.field:
        return typer.BadParameter(refusal.message, param_hint=refusal.field)
    return key_refusal(refusal) or UpstreamError(
        f"the server refused it: {_code(refusal)}: {refusal.message}"
    )


def key_refusal(refusal: Refusal) -> UpstreamError | None:
    """`UpstreamError` (exit 4) when the refusal is of what the key may do (OUT_OF_SCOPE)."""
    if refusal.field or _code(refusal) != "OUT_OF_SCOPE":
        return None
    return UpstreamError(
        f"the server refused it: {refusal.message}; give a key that may, with --api-key or "
        "KENNING_API_KEY",
        ExitCode.REFUSED,
    )


def _code(refusal: Refusal) -> str:
    return str(getattr(refusal.code, "value", refusal.code))


def upstream_error(error: BaseException, url: str, option: str = "--url") -> UpstreamError | None:
    """What ``error`` (httpx's or kenning-client's) means for the server at ``url``, or None."""
    from kenning_client import GraphQLClientHttpError

    if isinstance(error, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return UpstreamError(f"{option} {url}: not an http:// or https:// URL", ExitCode.USAGE)
    if isinstance(error, httpx.TransportError):
        return unreachable(url, _reason(error), option)
    if isinstance(error, GraphQLClientHttpError) and isinstance(error.response, httpx.Response):
        return http_status(url, error.response)
    return None


@contextlib.contextmanager
def calling(url: str, option: str = "--url") -> Iterator[None]:
    """Turn the server's transport and HTTP failures inside into an `UpstreamError`."""
    try:
        yield
    except Exception as error:
        known = upstream_error(error, url, option)
        if known is None:
            raise
        raise known from error


def _reason(error: httpx.TransportError) -> str:
    if isinstance(error, httpx.TimeoutException):
        return "no answer in time"
    text = " ".join(str(error).split()).rstrip(".")
    return text[:1].lower() + text[1:] if text else type(error).__name__


def _server_message(response: httpx.Response) -> str | None:
    """The first GraphQL error's message of a refusal, if the body is one."""
    try:
        errors = json.loads(response.content).get("errors") or []
        message = errors[0].get("message")
    except (ValueError, AttributeError, IndexError, TypeError):
        return None
    return message if isinstance(message, str) else None
