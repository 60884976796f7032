"""The scope table of ARCHITECTURE.md as SQL predicates (the one place reads are scoped).

A reader (client X, project Y, group G) sees a row when its client is "" or X, and the row
is client-wide (no project, no group), or in project Y, or in group G. The same rule as
``kenning.domain.scope.Scope.can_see``; the leak test checks both agree on every path.
"""

from __future__ import annotations

from kenning.domain.scope import Scope
from kenning.storage.graph_sql import prop


def visible_rows(first: int, table: str = "") -> str:
    """Predicate over ``client_id/project_id/group_id`` columns; reader scope in
    ``$first..$first+2``. Example: ``visible_rows(1, "c")``."""
    t = f"{table}." if table else ""
    c, p, g = f"${first}", f"${first + 1}", f"${first + 2}"
    return (
        f"({t}client_id = '' OR {t}client_id = {c}) AND "
        f"(({t}project_id = '' AND {t}group_id = '') "
        f"OR ({t}project_id <> '' AND {t}project_id = {p}) "
        f"OR ({t}group_id <> '' AND {t}group_id = {g}))"
    )


def visible_graph(alias: str, first: int) -> str:
    """The same predicate over an AGE vertex or edge's ``client/project/group`` properties."""
    client, project, group = (prop(alias, name) for name in ("client", "project", "group"))
    c, p, g = f"${first}", f"${first + 1}", f"${first + 2}"
    return (
        f"({client} = '' OR {client} = {c}) AND "
        f"(({project} = '' AND {group} = '') "
        f"OR ({project} <> '' AND {project} = {p}) "
        f"OR ({group} <> '' AND {group} = {g}))"
    )


def reader_params(scope: Scope) -> tuple[str, str, str]:
    """The three parameters the predicates take."""
    return scope.client_id, scope.project_id, scope.group_id
