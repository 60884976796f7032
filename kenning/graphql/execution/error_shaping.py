"""How errors leave the GraphQL layer: a code on each, the request id, masking and logs.

Every entry of a response's top-level ``errors`` carries ``extensions.code`` and
``extensions.requestId``:

====================  =====================================================================
code                  when
====================  =====================================================================
GRAPHQL_PARSE_FAILED  the document is not GraphQL (or has more tokens than allowed)
GRAPHQL_VALIDATION_   the document does not fit the schema or the API limits (depth,
FAILED                aliases)
BAD_USER_INPUT        a variable or argument cannot be accepted: wrong type, unknown enum
                      value, missing required field, out of range, bad cursor. ``field``
                      names it and ``reason`` gives the domain code (INVALID, TOO_LARGE, …)
FORBIDDEN             outside the key's scope or role (``reason`` OUT_OF_SCOPE)
NOT_FOUND / CONFLICT  a referenced item is missing / its state does not allow the operation
SERVICE_UNAVAILABLE   a part Kenning needs is down (postgres, redis, the embedder); ``part``
                      names it and the HTTP status is 503
INTERNAL_SERVER_ERROR anything else (a misconfiguration, a bug, a null where the schema
                      promises a value): the message is masked, the log has it under
                      requestId
====================  =====================================================================

Fields whose result is a union with error members (every mutation, ``search``,
``evidencePack``, ``agentContext``) report the same domain errors as members instead.

Client mistakes are logged at info without a traceback; a part that is down at warning;
only unexpected failures at error, with the traceback.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import SchemaExtension

from kenning.domain.embedding import EmbeddingError
from kenning.domain.errors import (
    ConflictError,
    KenningError,
    NotFoundError,
    ScopeError,
    ValidationError,
)
from kenning.domain.health import PART_NAMES
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.logs import request_id

logger = logging.getLogger("kenning.graphql")

MASKED_MESSAGE = "Unexpected error; the server log has details under this request's id."

# Names the part (``postgres``, ``redis``) an exception shows to be down, else None.
UnavailablePart = Callable[[BaseException], str | None]


class TopCode(StrEnum):
    """``extensions.code`` of a top-level error."""

    PARSE_FAILED = "GRAPHQL_PARSE_FAILED"
    VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"
    BAD_USER_INPUT = "BAD_USER_INPUT"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    INTERNAL = "INTERNAL_SERVER_ERROR"


_CLIENT_CODES = frozenset(TopCode) - {TopCode.SERVICE_UNAVAILABLE, TopCode.INTERNAL}
_VARIABLE = re.compile(
    r"^Variable '\$(?P<name>\w+)'(?: has invalid value at (?P<path>[\w.\[\]]+))?"
)


@dataclass(frozen=True, slots=True)
class Shaped:
    """What the client receives for one error, and how the server logs it."""

    code: TopCode
    message: str
    extensions: dict[str, Any]


def _never(_: BaseException) -> str | None:
    return None


def _variable_field(message: str) -> str | None:
    match = _VARIABLE.match(message)
    if match is None:
        return None
    path = (match["path"] or "").lstrip(".")
    return f"{match['name']}.{path}" if path else match["name"]


def _root_cause(error: GraphQLError) -> BaseException | None:
    original = error.original_error
    # graphql-core wraps coercion failures in nested GraphQLErrors.
    while isinstance(original, GraphQLError) and original.original_error is not None:
        original = original.original_error
    return original


# The domain's expected failures are the client's to fix; every other KenningError
# (misconfiguration, a permanent embedder fault, lost leases) is the server's.
_CLIENT_ERRORS: tuple[tuple[type[KenningError], TopCode], ...] = (
    (ValidationError, TopCode.BAD_USER_INPUT),
    (SensitiveContentError, TopCode.BAD_USER_INPUT),
    (ScopeError, TopCode.FORBIDDEN),
    (NotFoundError, TopCode.NOT_FOUND),
    (ConflictError, TopCode.CONFLICT),
)


_INTERNAL = Shaped(TopCode.INTERNAL, MASKED_MESSAGE, {})


def _unavailable(part: str) -> Shaped:
    name = PART_NAMES.get(part, part)
    return Shaped(
        TopCode.SERVICE_UNAVAILABLE, f"{name} is unavailable; try again shortly", {"part": part}
    )


def _domain(error: KenningError) -> Shaped:
    for kind, code in _CLIENT_ERRORS:
        if isinstance(error, kind):
            extra: dict[str, Any] = {"reason": error.code.value}
            if error.field is not None:
                extra["field"] = error.field
            return Shaped(code, error.message, extra)
    if isinstance(error, EmbeddingError) and error.transient:
        # The backend's own message names its address: the client gets the part only.
        return _unavailable("embedder")
    return _INTERNAL


def shape(error: GraphQLError, phase: str, unavailable: UnavailablePart = _never) -> Shaped:
    """Classify one error of a response; ``phase`` is parse, validate or execute."""
    if phase == "parse" or isinstance(error, GraphQLSyntaxError):
        return Shaped(TopCode.PARSE_FAILED, error.message, {})
    if phase == "validate":
        return Shaped(TopCode.VALIDATION_FAILED, error.message, {})
    cause = _root_cause(error)
    if isinstance(cause, KenningError):
        return _domain(cause)
    if cause is not None and not isinstance(cause, GraphQLError):
        part = unavailable(cause)
        return (
            _unavailable(part) if part is not None else Shaped(TopCode.INTERNAL, MASKED_MESSAGE, {})
        )
    if error.path is not None:
        # graphql-core's own complaint about a resolver's result (a null for a non-null
        # field, an Int out of range): a server bug, not the client's input.
        return _INTERNAL
    # Before any resolver ran: variables (or an operation name) the schema refused.
    field = _variable_field(error.message)
    return Shaped(TopCode.BAD_USER_INPUT, error.message, {"field": field} if field else {})


def shaped_error(error: GraphQLError, shaped: Shaped, rid: str | None) -> GraphQLError:
    """A new error for the client (cached validation errors are shared: never mutated)."""
    extensions = {**(error.extensions or {}), "code": shaped.code.value, **shaped.extensions}
    if rid:
        extensions["requestId"] = rid
    return GraphQLError(
        shaped.message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions=extensions,
    )


def log_error(error: GraphQLError, shaped: Shaped, operation: str | None) -> None:
    """Client mistakes at info, parts down at warning, the unexpected at error.

    The client's message is not logged: graphql-core quotes the offending input value in
    it, and input may hold anything. The code, field and path say what was refused.
    """
    fields = {"code": shaped.code.value, "operation": operation, **shaped.extensions}
    path = ".".join(str(p) for p in error.path) if error.path else None
    cause = _root_cause(error)
    if shaped.code in _CLIENT_CODES:
        logger.info("graphql.rejected", extra={**fields, "path": path})
    elif shaped.code is TopCode.SERVICE_UNAVAILABLE:
        logger.warning(
            "graphql.unavailable",
            extra={**fields, "path": path, "error": f"{type(cause).__name__}: {cause}"},
        )
    else:
        failure = cause or error
        logger.error(
            "graphql.failed",
            extra={**fields, "path": path},
            exc_info=(type(failure), failure, failure.__traceback__),
        )


class ErrorShaping(SchemaExtension):
    """Gives every error its code and request id, masks the unexpected, logs each once.

    Listed first among the schema's extensions, so it sees the errors the caching and
    limiting extensions produce.
    """

    def __init__(self, *, unavailable: UnavailablePart = _never) -> None:
        self._unavailable = unavailable
        self._phase = "parse"
        self._streamed = False

    def on_parse(self) -> Iterator[None]:
        self._phase = "parse"
        yield
        if self.execution_context.graphql_document is not None:
            self._phase = "validate"

    def on_validate(self) -> Iterator[None]:
        yield
        if not self.execution_context.pre_execution_errors:
            self._phase = "execute"

    def on_operation(self) -> Iterator[None]:
        self._streamed = False
        yield
        if self._streamed:
            return  # each result was shaped before it was sent
        self._shape_result(self.execution_context.result)

    def on_stream_result(self, result: Any) -> Iterator[None]:
        # Subscriptions: every result is shaped before it reaches the client.
        self._streamed = True
        self._shape_result(result)
        yield None

    def _shape_result(self, result: object) -> None:
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            result.errors = self.shape_all(errors)  # type: ignore[attr-defined]

    def shape_all(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        """The client's form of ``errors``; each is logged once here."""
        rid = request_id.get()
        operation = self.execution_context.operation_name
        shaped_errors = []
        unavailable = False
        for error in errors:
            shaped = shape(error, self._phase, self._unavailable)
            log_error(error, shaped, operation)
            unavailable = unavailable or shaped.code is TopCode.SERVICE_UNAVAILABLE
            shaped_errors.append(shaped_error(error, shaped, rid))
        response = getattr(self.execution_context.context, "response", None)
        if unavailable and response is not None:
            response.status_code = 503
        return shaped_errors
