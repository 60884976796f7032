"""The one place domain errors become members of GraphQL result unions.

Every member carries the domain error's ``code``, ``message`` and ``field`` (the ``Error``
interface); a few add what a client needs to act (findings, the job's status, the
revoked connection).
"""

from __future__ import annotations

from typing import overload

from kenning.domain.errors import NotFoundError, ScopeError, ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.jobs import JobStateError
from kenning.schema import errors as gql
from kenning.schema.queue import types as queue_gql

ExpectedError = (
    ValidationError
    | SensitiveContentError
    | ScopeError
    | NotFoundError
    | JobStateError
    | ConnectionRevokedError
)
Member = (
    gql.ValidationError
    | gql.SensitiveContentError
    | gql.ScopeError
    | gql.NotFoundError
    | queue_gql.JobStateError
    | queue_gql.ConnectionRevokedError
)


@overload
def error_member(error: SensitiveContentError) -> gql.SensitiveContentError: ...
@overload
def error_member(error: ScopeError) -> gql.ScopeError: ...
@overload
def error_member(error: NotFoundError) -> gql.NotFoundError: ...
@overload
def error_member(error: JobStateError) -> queue_gql.JobStateError: ...
@overload
def error_member(error: ConnectionRevokedError) -> queue_gql.ConnectionRevokedError: ...
@overload
def error_member(error: ValidationError) -> gql.ValidationError: ...


def error_member(error: ExpectedError) -> Member:
    """The union member that tells the client what went wrong with its request."""
    code, message, field = error.code, error.message, error.field
    if isinstance(error, SensitiveContentError):
        findings = [gql.SecretFinding(kind=f.kind.value, line=f.line) for f in error.shown]
        return gql.SensitiveContentError(code=code, message=message, field=field, findings=findings)
    if isinstance(error, ScopeError):
        return gql.ScopeError(code=code, message=message, field=field)
    if isinstance(error, NotFoundError):
        return gql.NotFoundError(code=code, message=message, field=field)
    if isinstance(error, JobStateError):
        return queue_gql.JobStateError(code=code, message=message, field=field, status=error.status)
    if isinstance(error, ConnectionRevokedError):
        return queue_gql.ConnectionRevokedError(
            code=code, message=message, field=field, connection_id=error.connection_id
        )
    return gql.ValidationError(code=code, message=message, field=field)
