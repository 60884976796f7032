"""Error members of result unions: a stable code, a message and the offending field.

Every member implements the ``Error`` interface, so a client can select
``... on Error { code message field }`` once for any result union.
"""

from __future__ import annotations

import strawberry

from kenning.domain.errors import ErrorCode

# The domain owns the codes; the schema exposes the same enum.
strawberry.enum(ErrorCode, description="Stable error codes owned by the domain.")


@strawberry.interface(
    description="What every error member of a result union has: a stable `code`, a message "
    "for people, and the camelCase input `field` it concerns (null when none)."
)
class Error:
    code: ErrorCode
    message: str
    field: str | None


@strawberry.type(description="Input that cannot be accepted; `field` names it.")
class ValidationError(Error):
    pass


@strawberry.type(description="One credential found in content: its kind and line, never the text.")
class SecretFinding:
    kind: str
    line: int


@strawberry.type(description="Content holds credentials; nothing of the request was stored.")
class SensitiveContentError(Error):
    findings: list[SecretFinding]


@strawberry.type(description="A read or write outside the caller's scope.")
class ScopeError(Error):
    pass


@strawberry.type(description="A referenced item does not exist or is not visible.")
class NotFoundError(Error):
    pass


@strawberry.type(
    description="The stored state does not allow the change (another item holds what it "
    "asks for); `field` names the input in the way."
)
class ConflictError(Error):
    pass


@strawberry.type(
    description="The write names a subject an erasure removed (by key, name or alias); "
    "`field` says where, never the name. Nothing of the request was stored."
)
class ErasedSubject(Error):
    pass
