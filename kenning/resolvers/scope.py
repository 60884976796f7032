"""The one place a request's scope is decided (the principal will replace the argument)."""

from __future__ import annotations

from kenning.domain.scope import Scope
from kenning.resolvers.context import Info
from kenning.schema.scope import ScopeInput


def write_scope(info: Info, scope: ScopeInput) -> Scope:
    """The scope a mutation writes at; raises the domain's errors when it is not allowed."""
    del info  # the caller's principal decides this once API keys exist
    return Scope(scope.client_id, scope.project_id, scope.group_id)
