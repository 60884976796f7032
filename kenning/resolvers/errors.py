"""The one place domain errors become members of GraphQL result unions.

``MEMBERS`` says which union member each domain error a client can act on becomes; every
member carries the error's ``code``, ``message`` and ``field`` (the ``Error`` interface), and
a few add what a client needs to act (findings, the job's status, the revoked connection).
``error_members`` applies it to a resolver: an error whose member the resolver's result union
lists comes back as that member; any other error propagates and becomes a top-level GraphQL
error (shaped in ``graphql/execution/error_shaping.py``).

Example::

    @error_members
    async def resolve_purge_source(info: Info, source_urn: str) -> PurgeResult: ...
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, cast

from kenning.domain.erasure.tombstone import ErasedSubjectError
from kenning.domain.errors import (
    ConflictError,
    KenningError,
    NotFoundError,
    ScopeError,
    ValidationError,
)
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.jobs import JobStateError, LeaseLostError
from kenning.domain.sources.files.errors import FileRejectedError, FileTooLargeError
from kenning.schema import errors as gql
from kenning.schema.queue import types as queue_gql
from kenning.schema.sources import files as files_gql

P = ParamSpec("P")
R = TypeVar("R")

Member = (
    gql.ValidationError
    | gql.SensitiveContentError
    | gql.ScopeError
    | gql.NotFoundError
    | gql.ConflictError
    | queue_gql.JobStateError
    | queue_gql.ConnectionRevokedError
    | files_gql.FileRejected
    | gql.ErasedSubject
)


def _validation(error: ValidationError) -> gql.ValidationError:
    return gql.ValidationError(code=error.code, message=error.message, field=error.field)


def _sensitive(error: SensitiveContentError) -> gql.SensitiveContentError:
    findings = [gql.SecretFinding(kind=f.kind.value, line=f.line) for f in error.shown]
    return gql.SensitiveContentError(
        code=error.code, message=error.message, field=error.field, findings=findings
    )


def _scope(error: ScopeError) -> gql.ScopeError:
    return gql.ScopeError(code=error.code, message=error.message, field=error.field)


def _not_found(error: NotFoundError) -> gql.NotFoundError:
    return gql.NotFoundError(code=error.code, message=error.message, field=error.field)


def _conflict(error: ConflictError) -> gql.ConflictError:
    return gql.ConflictError(code=error.code, message=error.message, field=error.field)


def _erased(error: ErasedSubjectError) -> gql.ErasedSubject:
    return gql.ErasedSubject(code=error.code, message=error.message, field=error.field)


def _job_state(error: JobStateError) -> queue_gql.JobStateError:
    return queue_gql.JobStateError(
        code=error.code, message=error.message, field=error.field, status=error.status
    )


def _revoked(error: ConnectionRevokedError) -> queue_gql.ConnectionRevokedError:
    return queue_gql.ConnectionRevokedError(
        code=error.code, message=error.message, field=error.field, connection_id=error.connection_id
    )


# Keyed by class, not by code alone: JobStateError, ConnectionRevokedError and LeaseLostError
# share CONFLICT, and OperationalError inherits INVALID, yet only some of them are members.
# A subclass takes its nearest listed ancestor's member (TooLargeError: ValidationError).
MEMBERS: dict[type[KenningError], Callable[[Any], Member]] = {
    ValidationError: _validation,
    SensitiveContentError: _sensitive,
    ScopeError: _scope,
    NotFoundError: _not_found,
    ConflictError: _conflict,
    JobStateError: _job_state,
    ConnectionRevokedError: _revoked,
    FileRejectedError: files_gql.file_rejected,
    FileTooLargeError: files_gql.file_rejected,
    ErasedSubjectError: _erased,
}


# Conflicts no client's request causes: a worker's lost lease stays a top-level error.
NOT_MEMBERS: tuple[type[KenningError], ...] = (LeaseLostError,)


def error_member(error: KenningError) -> Member | None:
    """The union member that tells the client what went wrong; None when none stands for it."""
    if isinstance(error, NOT_MEMBERS):
        return None
    for kind in type(error).__mro__:
        build = MEMBERS.get(kind)
        if build is not None:
            return build(error)
    return None


def union_members(resolver: Callable[..., object]) -> frozenset[type]:
    """The member types of the result union ``resolver`` declares it returns."""
    returned = typing.get_type_hints(resolver)["return"]
    members = frozenset(typing.get_args(returned))
    if not members:
        raise TypeError(f"{resolver.__qualname__} does not return a union")
    return members


def error_members(
    resolver: Callable[P, Awaitable[R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``resolver``, returning a domain error as the member its result union lists for it."""
    listed = union_members(resolver)

    @functools.wraps(resolver)
    async def resolve(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await resolver(*args, **kwargs)
        except KenningError as error:
            member = error_member(error)
            if member is None or type(member) not in listed:
                raise
            # The union check above is what makes the member a valid R.
            return cast(R, member)

    return resolve
