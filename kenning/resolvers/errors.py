"""The one place domain errors become members of GraphQL result unions."""

from __future__ import annotations

from typing import overload

from kenning.domain.errors import NotFoundError, ScopeError, ValidationError
from kenning.domain.sensitive import SensitiveContentError
from kenning.schema import errors as gql

ExpectedError = ValidationError | SensitiveContentError | ScopeError | NotFoundError


@overload
def error_member(error: SensitiveContentError) -> gql.SensitiveContentError: ...
@overload
def error_member(error: ScopeError) -> gql.ScopeError: ...
@overload
def error_member(error: NotFoundError) -> gql.NotFoundError: ...
@overload
def error_member(error: ValidationError) -> gql.ValidationError: ...


def error_member(
    error: ExpectedError,
) -> gql.ValidationError | gql.SensitiveContentError | gql.ScopeError | gql.NotFoundError:
    """The union member that tells the client what went wrong with its request."""
    if isinstance(error, SensitiveContentError):
        findings = [gql.SecretFinding(kind=f.kind.value, line=f.line) for f in error.findings]
        return gql.SensitiveContentError(
            code=error.code, message=error.message, field=error.field, findings=findings
        )
    if isinstance(error, ScopeError):
        return gql.ScopeError(code=error.code, message=error.message)
    if isinstance(error, NotFoundError):
        return gql.NotFoundError(code=error.code, message=error.message, field=error.field)
    return gql.ValidationError(code=error.code, message=error.message, field=error.field)
