"""The one place a request's scope is decided: the principal's, narrowed by the caller."""

from __future__ import annotations

from kenning.domain.errors import ScopeError
from kenning.domain.principal import Principal
from kenning.domain.scope import Scope
from kenning.resolvers.context import Info
from kenning.schema.scope import ScopeInput


def principal(info: Info) -> Principal:
    """The authenticated caller (the view refuses requests without one)."""
    caller = info.context.principal
    if caller is None:
        raise ScopeError("no API key was presented")
    return caller


def to_scope(value: ScopeInput | None) -> Scope | None:
    """The domain form of a scope argument."""
    if value is None:
        return None
    return Scope(value.client_id, value.project_id, value.group_id)


def write_scope(info: Info, scope: ScopeInput | None) -> Scope:
    """The scope a mutation writes at: the principal's, or a narrowing of it.

    Raises ``ScopeError`` for a read-only key or a scope outside the principal's.
    """
    return principal(info).writing(to_scope(scope))


def read_scope(info: Info, narrow: ScopeInput | None = None) -> Scope:
    """The scope a query reads with: the principal's, or a narrowing of it.

    Asking for a scope the principal does not contain raises ``ScopeError``.
    """
    return principal(info).reading(to_scope(narrow))


def manage_client(info: Info, scope: ScopeInput | None) -> str:
    """The client an admin operation (keys, aliases) acts on; admins only."""
    caller = principal(info)
    client = scope.client_id if scope is not None and scope.client_id else caller.scope.client_id
    caller.managing(client)
    return client
