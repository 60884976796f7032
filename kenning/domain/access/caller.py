"""Who calls, and the scopes a call reads and writes at: one helper for every face.

GraphQL resolvers and MCP tools each turn their own scope argument into a domain ``Scope``
(or ``None`` for the key's own) and hand it, with the caller, to the use case; the rules of
what a key may read, write and manage live in ``Principal`` and ``project_groups``, and are
reached from here only, so a key reaches exactly the same data through either face.

Example::

    caller = CallerScope(principal, runtime.project_groups)
    reader = caller.reading(None)                      # the key's own scope
    writer = await caller.stored_writing(Scope("acme", "web", ""))
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.principal import Principal
from kenning.domain.access.project_groups import ProjectGroupStore, stored_write_scope
from kenning.domain.access.scope import Scope


@dataclass(frozen=True, slots=True)
class CallerScope:
    """The principal behind one request's key, with the store its writes settle groups in."""

    principal: Principal
    groups: ProjectGroupStore

    def reading(self, narrow: Scope | None = None) -> Scope:
        """The scope a read uses: the key's, or a narrowing of it (``ScopeError`` when wider)."""
        return self.principal.reading(narrow)

    def writing(self, target: Scope | None = None) -> Scope:
        """The scope a write acts at; ``ScopeError`` for a read-only key or a foreign scope.
        Writes that store rows use ``stored_writing``, which also settles a project's group."""
        return self.principal.writing(target)

    async def stored_writing(self, target: Scope | None = None) -> Scope:
        """``writing``, with a project's group settled against the recorded one (and
        recorded, the first time a key that may names it)."""
        return await stored_write_scope(self.principal, target, self.groups)

    def managing(self, client_id: str | None) -> str:
        """The client an admin operation (keys, aliases) acts on: ``client_id`` or the key's
        own; ``ScopeError`` unless the key is an admin over it."""
        client = client_id or self.principal.scope.client_id
        self.principal.managing(client)
        return client
