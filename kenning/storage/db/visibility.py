"""The scope rule of ``kenning.domain.access.scope.Scope.can_see`` as SQL predicates: the one place
reads are scoped.

A reader (client X, project Y, group G) passes ``X, Y, G``. A global reader sees every row, a
client reader every row of X; otherwise the reader sees global and client-wide rows, the rows
of its group, of Y, and of every project in its group. The group is Y's in
``project_groups`` (``""`` when it was moved out of every group; G only when nothing is
recorded for Y), and a project row counts as in a group by ``project_groups``
too, never by the group stamped on it, so a move changes visibility at once. Both the group
and the group's projects are uncorrelated subqueries: PostgreSQL computes them once per
statement, not per row. The leak test checks this and the domain rule agree on every path.
"""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.storage.db.agtype import prop


def reader_group(first: int) -> str:
    """The reader's group (``$first..$first+2`` hold its scope): its project's, else its own."""
    c, p, g = f"${first}", f"${first + 1}", f"${first + 2}"
    return (
        f"(SELECT CASE WHEN {p} = '' THEN {g} ELSE coalesce((SELECT pg.group_id "
        f"FROM project_groups pg WHERE pg.client_id = {c} AND pg.project_id = {p}), {g}) END)"
    )


def _predicate(client: str, project: str, group: str, first: int) -> str:
    c, p, g = f"${first}", f"${first + 1}", f"${first + 2}"
    rg = reader_group(first)
    return (
        f"({c} = '' OR {client} = '' OR ({client} = {c} AND ("
        f"({p} = '' AND {g} = '') "
        f"OR ({project} = '' AND {group} = '') "
        f"OR ({project} = '' AND {group} <> '' AND {group} = {rg}) "
        f"OR ({project} <> '' AND ({project} = {p} OR {project} IN ("
        f"SELECT pg.project_id FROM project_groups pg "
        f"WHERE pg.client_id = {c} AND pg.group_id <> '' AND pg.group_id = {rg}))))))"
    )


def visible_rows(first: int, table: str = "") -> str:
    """Predicate over ``client_id/project_id/group_id`` columns; reader scope in
    ``$first..$first+2``. Example: ``visible_rows(1, "c")``."""
    t = f"{table}." if table else ""
    return _predicate(f"{t}client_id", f"{t}project_id", f"{t}group_id", first)


def visible_graph(alias: str, first: int) -> str:
    """The same predicate over an AGE vertex or edge's ``client/project/group`` properties."""
    client, project, group = (prop(alias, name) for name in ("client", "project", "group"))
    return _predicate(client, project, group, first)


def reader_params(scope: Scope) -> tuple[str, str, str]:
    """The three parameters the predicates take."""
    return scope.client_id, scope.project_id, scope.group_id
