"""The one place a request's scope is decided: the principal's, narrowed by the caller."""

from __future__ import annotations

from kenning.domain.scope import Scope
from kenning.resolvers.context import Info
from kenning.schema.scope import ScopeInput


def write_scope(info: Info, scope: ScopeInput) -> Scope:
    """The scope a mutation writes at; raises the domain's errors when it is not allowed."""
    del info  # the caller's principal decides this once API keys exist
    return Scope(scope.client_id, scope.project_id, scope.group_id)


def read_scope(info: Info, narrow: ScopeInput | None = None) -> Scope:
    """The scope a query reads with: the principal's, or a narrowing of it.

    Asking for a scope the principal does not contain raises ``ScopeError``.
    """
    del info  # replaced by the principal's scope once API keys exist
    if narrow is None:
        return Scope()
    return Scope(narrow.client_id, narrow.project_id, narrow.group_id)
