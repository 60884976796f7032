"""Types of who is calling (``viewer``) and of API key management (admin keys)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.access.principal import Role
from kenning.schema.access.scope import ScopeInfo, ScopeInput
from kenning.schema.errors import NotFoundError, ScopeError, ValidationError

strawberry.enum(
    Role, description="ui reads; agent reads and writes; admin also manages keys and aliases."
)


@strawberry.type(description="The caller: the API key behind this request.")
class Viewer:
    key_id: str = strawberry.field(description='The key\'s id ("anonymous" without a key).')
    role: Role
    scope: ScopeInfo = strawberry.field(description="What the key reads and writes.")
    anonymous: bool


@strawberry.type(description="An API key as stored: never its secret, only its hash is kept.")
class ApiKey:
    id: strawberry.ID
    role: Role
    scope: ScopeInfo
    label: str
    created_at: datetime
    revoked_at: datetime | None


@strawberry.input(description="A new key: its scope (the admin key's or narrower) and role.")
class CreateApiKeyInput:
    role: Role
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the admin key's own scope."
    )
    label: str = strawberry.field(default="", description="A note to recognise the key by.")


@strawberry.type(description="The new key. `key` is shown this once: store it now.")
class CreateApiKeySuccess:
    key: str
    api_key: ApiKey


@strawberry.type(
    description="The key is revoked: this server refuses it at once, other "
    "Kenning processes within 30 seconds (their key cache)."
)
class RevokeApiKeySuccess:
    api_key: ApiKey


CreateApiKeyResult = Annotated[
    CreateApiKeySuccess | ValidationError | ScopeError, strawberry.union("CreateApiKeyResult")
]
RevokeApiKeyResult = Annotated[
    RevokeApiKeySuccess | NotFoundError | ScopeError, strawberry.union("RevokeApiKeyResult")
]
