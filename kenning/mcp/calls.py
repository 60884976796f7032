"""What every tool shares: the caller of the request, its scopes, keys resolved through the
client's aliases, domain results as JSON, domain errors as tool errors with their code, and
the refusal of argument text PostgreSQL cannot store.

The scope helpers turn a tool's scope argument into a domain ``Scope`` and ask the caller's
``CallerScope`` (``kenning.domain.access.caller``), as GraphQL's resolvers do, so a key
reaches exactly what it reaches over GraphQL.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, ParamSpec, TypeAlias, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field
from pydantic_core import to_jsonable_python
from starlette.requests import Request

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError, ValidationError
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.storable_text import check_storable
from kenning.mcp.auth import CALLER, Caller

P = ParamSpec("P")
R = TypeVar("R")

# The context a tool asks the SDK for; the SDK fills it and leaves it out of the schema.
ToolContext: TypeAlias = Context[Any, Request]


class ScopeArg(BaseModel):
    """A narrower scope than the key's (a global key names the client to act for)."""

    client_id: Annotated[str, Field(description="The client (tenant).")] = ""
    project_id: Annotated[str, Field(description="A project of the client.")] = ""
    group_id: Annotated[str, Field(description="The project's group.")] = ""


NarrowScope = Annotated[
    ScopeArg | None,
    Field(description="Optional: narrows the API key's scope; omit to use the key's own."),
]


def caller(ctx: ToolContext) -> Caller:
    """The runtime and principal ``auth.KeyGate`` admitted this request with."""
    request = ctx.request_context.request
    found = None if request is None else request.scope.get(CALLER)
    if not isinstance(found, Caller):
        raise ToolError("OUT_OF_SCOPE: no API key was presented")
    return found


def to_scope(value: ScopeArg | None) -> Scope | None:
    """The domain form of a scope argument (``None``: the key's own)."""
    return None if value is None else Scope(value.client_id, value.project_id, value.group_id)


def read_scope(who: Caller, narrow: ScopeArg | None) -> Scope:
    """``CallerScope.reading`` for a scope argument."""
    return who.scoped.reading(to_scope(narrow))


def write_scope(who: Caller, target: ScopeArg | None) -> Scope:
    """``CallerScope.writing`` for a scope argument."""
    return who.scoped.writing(to_scope(target))


async def stored_write_scope(who: Caller, target: ScopeArg | None) -> Scope:
    """``CallerScope.stored_writing`` for a scope argument."""
    return await who.scoped.stored_writing(to_scope(target))


async def canonical_keys(who: Caller, reader: Scope, keys: list[tuple[str, str]]) -> list[str]:
    """Each ``(key, field)`` parsed (normalized, canonicalized; a bad key names its field) and
    resolved through the reader's client's aliases, in order."""
    parsed = [parse_key(key, field=field).key for key, field in keys]
    return await alias_resolved(reader.client_id, parsed, who.runtime.aliases)


async def canonical_key(who: Caller, reader: Scope, key: str, field: str) -> str:
    """One key, as ``canonical_keys`` resolves it."""
    [canonical] = await canonical_keys(who, reader, [(key, field)])
    return canonical


_SCALARS = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_FIELDS: dict[type, tuple[tuple[str, str], ...] | None] = {}


def _named_fields(kind: type) -> tuple[tuple[str, str], ...] | None:
    """A dataclass's (attribute, camelCase key) pairs, worked out once per class (a search
    answer converts hundreds of values per call); ``None`` for any other type."""
    if kind not in _FIELDS:
        named = dataclasses.is_dataclass(kind)
        _FIELDS[kind] = (
            tuple((f.name, _camel(f.name)) for f in dataclasses.fields(kind)) if named else None
        )
    return _FIELDS[kind]


def plain(value: object) -> Any:
    """``value`` as JSON: dataclasses as objects with camelCase keys, enums by value,
    datetimes in ISO 8601 (the names and forms the GraphQL API uses)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    named = _named_fields(kind)
    if named is not None:
        return {key: plain(getattr(value, name)) for name, key in named}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(item) for item in value]
    return value


def time_argument(value: str | None, field: str) -> datetime | None:
    """An ISO 8601 time argument (``2026-01-31T09:00:00Z``), parsed here rather than by the
    SDK, so a malformed one (or a NUL in it, refused first) is an INVALID naming ``field``."""
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise ValidationError(
            f"{field} must be an ISO 8601 time, e.g. 2026-01-31T09:00:00Z", field=field
        ) from None


def error_text(error: KenningError) -> str:
    """The tool error an agent reads: the stable code, the message and the field."""
    where = f" (field: {error.field})" if error.field else ""
    return f"{error.code.value}: {error.message}{where}"


def domain_errors(
    tool: Callable[P, Awaitable[R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``tool``, with a domain error returned to the agent as a tool error naming its code.

    Anything else stays a crash: the SDK logs it and tells the agent only which tool failed.
    """

    @functools.wraps(tool)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await tool(*args, **kwargs)
        except KenningError as error:
            raise ToolError(error_text(error)) from None

    return call


def storable_arguments(
    tool: Callable[P, Awaitable[R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``tool``, refusing text PostgreSQL cannot store (a NUL, a lone surrogate) in any of
    its arguments, nested ones and JSON keys included, before it runs: a tool error naming
    the argument, as GraphQL refuses such variables. ``server.py`` wraps every tool with it.
    """

    @functools.wraps(tool)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        # Arguments as the agent sent them (models as objects, enums as their values); the
        # context the SDK passes is no argument.
        sent = {
            name: to_jsonable_python(value)
            for name, value in kwargs.items()
            if not isinstance(value, Context)
        }
        try:
            check_storable(sent)
        except ValidationError as error:
            raise ToolError(error_text(error)) from None
        return await tool(*args, **kwargs)

    return call
