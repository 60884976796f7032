"""Which group a project is in, and who may say so: the rule a write's scope is settled by.

A project's group is a fact about the project (``ProjectGroups``), not about the rows or keys
that name it. The first write or key naming a project together with a group records it, if
its writer may: a global or client-wide key, or a key of exactly that project and group (an
admin minted it so). Later writes must name the same group or none; ``kenning projects move``
is the one way to change it (or to take a project out of every group, recorded as ``""``),
and visibility follows at once.
"""

from __future__ import annotations

import logging
from typing import Protocol

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import ProjectGroups, Scope, ScopeLevel
from kenning.domain.errors import ScopeError

# The name log filters select the audit line by (it was the GraphQL scope module's).
audit = logging.getLogger("kenning.resolvers.scope")


def settled(target: Scope, writer: Scope, current: str | None) -> tuple[Scope, bool]:
    """The scope to store ``target`` at, and whether to record its project's group.

    ``current`` is the project's recorded group: ``None`` when nothing is recorded, ``""``
    when it was moved out of every group. A key minted for a project and group before the
    project moved keeps writing, at the project's group now. A write never undoes a move:
    a project taken out of its group goes back into one by ``kenning projects move`` only.
    Example: ``settled(Scope("a", "p", "g"), Scope("a"), None)`` is ``(that scope, True)``.
    """
    if not (target.project_id and target.group_id) or current == target.group_id:
        return target, False
    owner = writer.level in (ScopeLevel.GLOBAL, ScopeLevel.CLIENT)
    own_key = writer.project_id == target.project_id and writer.group_id == target.group_id
    if current is None:
        if owner or own_key:
            return target, True
        raise ScopeError(
            f"project {target.project_id!r} is in no group yet; only a client-wide key, or a "
            f"key of that project and group, may put it in group {target.group_id!r}"
        )
    if own_key:
        return Scope(target.client_id, target.project_id, current), False
    if not current:
        raise ScopeError(
            f"project {target.project_id!r} was taken out of its group; "
            "`kenning projects move` puts it in one"
        )
    raise ScopeError(
        f"project {target.project_id!r} is in group {current!r}, not {target.group_id!r} "
        "(`kenning projects move` changes a project's group)"
    )


class ProjectGroupStore(Protocol):
    """Where projects' groups are recorded (``kenning.storage.access.project_groups``)."""

    async def of_client(self, client_id: str) -> ProjectGroups:
        """Every recorded project of a client, with its group."""
        ...

    async def settle(self, target: Scope, writer: Scope) -> Scope:
        """``settled`` against the recorded group, recording it when that is the outcome."""
        ...

    async def move(self, client_id: str, project_id: str, group_id: str) -> str:
        """Put a project in a group (``""``: none); returns the group it was in."""
        ...


async def stored_write_scope(
    caller: Principal, target: Scope | None, groups: ProjectGroupStore
) -> Scope:
    """The scope a write that stores rows acts at, for GraphQL and MCP alike: the caller's,
    or one it owns (``ScopeError`` otherwise), with a project's group settled against the
    recorded one (and recorded, the first time a key that may names it).

    A global key may write into any client's scope: such writes are logged, so an operator
    can see which client's knowledge a global key changed.
    """
    wanted = caller.writing(target)
    stored = await groups.settle(wanted, caller.scope)
    if not caller.scope.client_id and stored.client_id:
        audit.info(
            "scope.global_key_write",
            extra={"key_id": caller.key_id, "scope": stored.describe()},
        )
    return stored
