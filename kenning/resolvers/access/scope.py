"""The one place a request's scope is decided: the principal's, narrowed by the caller."""

from __future__ import annotations

import logging

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError
from kenning.resolvers.context import Info
from kenning.schema.access.scope import ScopeInput

# Named as before the move into access/: log filters select the audit line by it.
logger = logging.getLogger("kenning.resolvers.scope")


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
    """``write_scope``, with a project's group settled against the recorded one (and
    recorded, the first time a key that may names it).

    A global key may write into any client's scope: such writes are logged, so an operator
    can see which client's knowledge a global key changed.
    """
    caller = principal(info)
    target = caller.writing(to_scope(scope))
    settled = await info.context.runtime.project_groups.settle(target, caller.scope)
    if not caller.scope.client_id and settled.client_id:
        logger.info(
            "scope.global_key_write",
            extra={"key_id": caller.key_id, "scope": settled.describe()},
        )
    return settled


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
