"""Scope as GraphQL input and output."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.access.scope import PUBLIC, Scope


@strawberry.input(description='Client, project and group ids; "" (the default) means unset.')
class ScopeInput:
    client_id: str = ""
    project_id: str = ""
    group_id: str = ""


@strawberry.type(description='Where a row lives; "" means unset (global when all are).')
class ScopeInfo:
    client_id: str
    project_id: str
    group_id: str


def scope_info(scope: Scope) -> ScopeInfo:
    """The GraphQL form of a scope (the keyless reader's shows as global: that is what it
    reads)."""
    if scope == PUBLIC:
        return ScopeInfo(client_id="", project_id="", group_id="")
    return ScopeInfo(
        client_id=scope.client_id, project_id=scope.project_id, group_id=scope.group_id
    )


# The optional argument of every read that may narrow the key's scope.
NarrowScope = Annotated[
    ScopeInput | None, strawberry.argument(description="Narrows the key's scope.")
]
