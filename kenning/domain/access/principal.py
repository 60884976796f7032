"""Principals: who is calling (an API key's scope and role) and what that allows."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from enum import StrEnum

from kenning.domain.access.scope import PUBLIC, Scope
from kenning.domain.errors import ScopeError

KEY_PREFIX = "kn_"


class Role(StrEnum):
    """What a key may do: ``ui`` reads; ``agent`` reads and writes; ``admin`` also manages
    keys and aliases."""

    UI = "ui"
    AGENT = "agent"
    ADMIN = "admin"


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller behind a request."""

    key_id: str
    scope: Scope
    role: Role
    anonymous: bool = False

    def reading(self, narrow: Scope | None) -> Scope:
        """The scope to read with: the principal's, or a narrowing of it (never wider)."""
        if narrow is None:
            return self.scope
        if not self.scope.narrows_to(narrow):
            raise ScopeError(
                f"scope {narrow.describe()} is outside this key's scope {self.scope.describe()}"
            )
        return narrow

    def writing(self, target: Scope | None) -> Scope:
        """The scope to write at; agents and admins only, at a scope the key owns
        (``Scope.owns``). A project row's group is settled against its project's recorded
        group before it is stored (``kenning.domain.access.project_groups.settled``)."""
        if self.role is Role.UI:
            raise ScopeError("this key may only read (role ui)")
        scope = target if target is not None else self.scope
        if not self.scope.owns(scope):
            raise ScopeError(
                f"cannot write at {scope.describe()} with a key scoped to {self.scope.describe()}"
            )
        return scope

    def modifying(self, stored: Scope) -> None:
        """Raise ``ScopeError`` unless this principal may change an item stored at
        ``stored`` (``Scope.owns``); agents and admins only."""
        if self.role is Role.UI:
            raise ScopeError("this key may only read (role ui)")
        if not self.scope.owns(stored):
            raise ScopeError(f"{stored.describe()} is outside this key's scope")

    def managing(self, client_id: str) -> None:
        """Raise ``ScopeError`` unless this is an admin over ``client_id``."""
        if self.role is not Role.ADMIN:
            raise ScopeError("managing keys and aliases needs an admin key")
        if self.scope.client_id not in ("", client_id):
            raise ScopeError(f"this admin key does not manage client {client_id!r}")


ANONYMOUS = Principal(key_id="anonymous", scope=PUBLIC, role=Role.UI, anonymous=True)


def new_key() -> str:
    """A fresh API key: 256 random bits, URL-safe, with a recognisable prefix."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    """What is stored instead of the key. Keys are 256-bit random, so a plain SHA-256 is
    as strong as a slow hash here and keeps every request's lookup cheap."""
    return hashlib.sha256(key.encode()).hexdigest()


def bearer_key(header: str | None) -> str | None:
    """The key in an ``Authorization: Bearer <key>`` value, if it holds one."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
