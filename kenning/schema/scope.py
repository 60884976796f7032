"""Scope as GraphQL input and output."""

from __future__ import annotations

import strawberry


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
