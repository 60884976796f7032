"""A GraphQL request's caller and scope arguments, in the domain's terms.

The rules live in ``kenning.domain.access.caller.CallerScope`` (MCP tools use the same);
this module only finds the caller in a resolver's ``Info`` and turns ``ScopeInput`` into a
domain ``Scope``.
"""

from __future__ import annotations

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError
from kenning.graphql.context import Info
from kenning.schema.access.scope import ScopeInput


def principal(info: Info) -> Principal:
    """The authenticated caller (the view refuses requests without one)."""
    caller = info.context.principal
    if caller is None:
        raise ScopeError("no API key was presented")
    return caller


def caller(info: Info) -> CallerScope:
    """The request's caller, as every use case takes it."""
    return CallerScope(principal(info), info.context.runtime.project_groups)


def to_scope(value: ScopeInput | None) -> Scope | None:
    """The domain form of a scope argument."""
    if value is None:
        return None
    return Scope(value.client_id, value.project_id, value.group_id)


def write_scope(info: Info, scope: ScopeInput | None) -> Scope:
    """``CallerScope.writing`` for a scope argument."""
    return caller(info).writing(to_scope(scope))


async def stored_write_scope(info: Info, scope: ScopeInput | None) -> Scope:
    """``CallerScope.stored_writing`` for a scope argument."""
    return await caller(info).stored_writing(to_scope(scope))


def read_scope(info: Info, narrow: ScopeInput | None = None) -> Scope:
    """``CallerScope.reading`` for a scope argument."""
    return caller(info).reading(to_scope(narrow))


def manage_client(info: Info, scope: ScopeInput | None) -> str:
    """``CallerScope.managing`` for a scope argument; admins only."""
    return caller(info).managing(scope.client_id if scope is not None else None)
