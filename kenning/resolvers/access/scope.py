"""The one place a request's scope is decided: the principal's, narrowed by the caller."""

from __future__ import annotations

from kenning.domain.access.principal import Principal
from kenning.domain.access.project_groups import stored_write_scope as groups_stored_write_scope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError
from kenning.resolvers.context import Info
from kenning.schema.access.scope import ScopeInput


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
    """The scope a mutation acts at: the principal's, or one it owns.

    Raises ``ScopeError`` for a read-only key or a scope outside the principal's. Writes
    that store rows use ``stored_write_scope``, which also settles a project's group.
    """
    return principal(info).writing(to_scope(scope))


async def stored_write_scope(info: Info, scope: ScopeInput | None) -> Scope:
    """``write_scope``, with a project's group settled and recorded (the domain's
    ``stored_write_scope``, which MCP tools call too)."""
    groups = info.context.runtime.project_groups
    return await groups_stored_write_scope(principal(info), to_scope(scope), groups)


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
