"""Managing API keys: what an admin key may mint, see and revoke.

An admin manages keys inside its own scope only: a key it creates reads nothing the admin
cannot (``Scope.narrows_to``; any role, admin included), and it lists and revokes only
such keys. A key
outside that scope is reported as missing, so its existence does not leak.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.project_groups import ProjectGroupStore
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ScopeError, ValidationError

MAX_LABEL = 200


@dataclass(frozen=True, slots=True)
class ApiKeyInfo:
    """A stored key, without its secret."""

    id: str
    scope: Scope
    role: Role
    label: str
    created_at: datetime
    revoked_at: datetime | None


class KeyBook(Protocol):
    """Where keys live (only their hash)."""

    async def create(self, scope: Scope, role: Role, label: str = "") -> tuple[str, ApiKeyInfo]:
        """A new key and its record; the key itself is never stored."""
        ...

    async def get(self, key_id: str) -> ApiKeyInfo | None:
        """A key's record by id."""
        ...

    async def revoke(self, key_id: str) -> ApiKeyInfo | None:
        """Revoke by id; ``None`` when there is no such key."""
        ...

    async def list(self, client_id: str | None = None) -> list[ApiKeyInfo]:
        """Keys of one client (all when ``None``), newest first."""
        ...


def _admin(caller: Principal) -> None:
    if caller.role is not Role.ADMIN:
        raise ScopeError("managing keys needs an admin key")


async def create_key(
    caller: Principal,
    scope: Scope,
    role: Role,
    label: str,
    keys: KeyBook,
    groups: ProjectGroupStore,
) -> tuple[str, ApiKeyInfo]:
    """A new key at ``scope`` (the caller's or narrower); the text is returned once.

    A key naming a project and a group records the project's group, as a write would, and
    is refused when the project is in another group."""
    _admin(caller)
    if not caller.scope.narrows_to(scope):
        raise ScopeError(
            f"an admin key scoped to {caller.scope.describe()} cannot create a key for "
            f"{scope.describe()}"
        )
    check_label(label)
    settled = await groups.settle(scope, caller.scope)
    return await keys.create(settled, role, label)


def check_label(label: str) -> None:
    """Raise ``ValidationError`` unless ``label`` is a short printable note."""
    if len(label) > MAX_LABEL or any(ord(c) < 32 for c in label):
        raise ValidationError(
            f"label must be at most {MAX_LABEL} printable characters", field="label"
        )


async def list_keys(
    caller: Principal, keys: KeyBook, *, include_revoked: bool = False
) -> Sequence[ApiKeyInfo]:
    """The keys inside the caller's scope, newest first."""
    _admin(caller)
    client = caller.scope.client_id or None
    return [
        key
        for key in await keys.list(client)
        if caller.scope.narrows_to(key.scope) and (include_revoked or key.revoked_at is None)
    ]


async def revoke_key(caller: Principal, key_id: str, keys: KeyBook) -> ApiKeyInfo:
    """Revoke a key inside the caller's scope; requests with it fail from then on."""
    _admin(caller)
    found = await keys.get(key_id)
    if found is None or not caller.scope.narrows_to(found.scope):
        raise NotFoundError(f"no key {key_id} in this admin key's scope", field="id")
    revoked = await keys.revoke(key_id)
    if revoked is None:  # deleted in between
        raise NotFoundError(f"no key {key_id}", field="id")
    return revoked
