"""Scopes and the visibility rule of ARCHITECTURE.md's scope table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from kenning.domain.errors import ValidationError

_MAX_PART = 200


class ScopeLevel(StrEnum):
    """How wide a stored row's scope is."""

    GLOBAL = "global"
    CLIENT = "client"
    GROUP = "group"
    PROJECT = "project"


@dataclass(frozen=True, slots=True)
class Scope:
    """Client, project and group ids; ``""`` means unset.

    Example: ``Scope("acme", "web", "frontend")`` is project ``web`` of group ``frontend``.
    """

    client_id: str = ""
    project_id: str = ""
    group_id: str = ""

    def __post_init__(self) -> None:
        for name in ("client_id", "project_id", "group_id"):
            value = getattr(self, name)
            if len(value) > _MAX_PART or any(ord(c) < 32 for c in value):
                raise ValidationError(
                    f"{name} must be at most {_MAX_PART} printable characters", field=name
                )
        if not self.client_id and (self.project_id or self.group_id):
            raise ValidationError("a project or group scope needs a clientId", field="clientId")

    @property
    def level(self) -> ScopeLevel:
        """The row level this scope writes at."""
        if not self.client_id:
            return ScopeLevel.GLOBAL
        if self.project_id:
            return ScopeLevel.PROJECT
        if self.group_id:
            return ScopeLevel.GROUP
        return ScopeLevel.CLIENT

    def can_see(self, row: Scope, groups: ProjectGroups) -> bool:
        """True when a reader with this scope may see a row stored with ``row``'s scope.

        The rule is hierarchical: a global reader sees every row; a client reader every row
        of its client; a group or project reader the global and client-wide rows, its
        group's rows, its own project's rows and the rows of every project in its group.
        Which group a project is in comes from ``groups``, never from a row's stamp, so a
        moved project's rows follow it at once.
        """
        if not self.client_id:
            return True
        if row.client_id != self.client_id:
            return row.client_id == ""
        if self.level is ScopeLevel.CLIENT or row.level is ScopeLevel.CLIENT:
            return True
        group = groups.reader_group(self)
        if row.project_id:
            if row.project_id == self.project_id:
                return True
            return bool(group) and groups.group_of(row.client_id, row.project_id) == group
        return bool(group) and row.group_id == group

    def narrows_to(self, other: Scope) -> bool:
        """True when a key of this scope may read or write as ``other``, or mint a key for it.

        A global key may act for any scope, and a client key for any scope of its client:
        they own them. A project key may act as its project, naming its own group or none
        (the project's group decides either way); a group key only as itself. A narrowing
        may keep or drop what the key names, never fill in what it lacks: a project key
        naming another group, or a group key naming a project, would see more, not less.
        Example: ``Scope("a").narrows_to(Scope("a", "p", "g"))`` is true,
        ``Scope("a", "p").narrows_to(Scope("a", "p", "g"))`` is false.
        """
        if not self.client_id:
            return True
        if other.client_id != self.client_id:
            return False
        if self.level is ScopeLevel.CLIENT:
            return True
        if self.project_id:
            return other.project_id == self.project_id and other.group_id in ("", self.group_id)
        return other == self

    def owns(self, stored: Scope) -> bool:
        """True when a key of this scope may change an item stored at ``stored``: its own
        scope's items, and a project key its project's whatever group they name.
        Example: ``Scope("a", "p").owns(Scope("a", "p", "g"))`` is true."""
        if self.project_id and stored.client_id == self.client_id:
            return stored.project_id == self.project_id
        return self.narrows_to(stored)

    def describe(self) -> str:
        """A short human form such as ``client=acme project=web group=frontend``."""
        if not self.client_id:
            return "global"
        if self.client_id == _PUBLIC_CLIENT:
            return "public (global rows only)"
        parts = [f"client={self.client_id}"]
        if self.project_id:
            parts.append(f"project={self.project_id}")
        if self.group_id:
            parts.append(f"group={self.group_id}")
        return " ".join(parts)


GLOBAL = Scope()

# A control character: no stored scope can hold one (``Scope`` refuses them), so this client
# id matches no client's rows, and PostgreSQL text can carry it (unlike NUL).
_PUBLIC_CLIENT = "\x01public"


def _public() -> Scope:
    scope = object.__new__(Scope)
    for name, value in (("client_id", _PUBLIC_CLIENT), ("project_id", ""), ("group_id", "")):
        object.__setattr__(scope, name, value)
    return scope


PUBLIC = _public()
"""The reader of a request without a key: global rows only, and it can narrow to nothing
else (a global key, by the hierarchical rule, sees every row)."""


@dataclass(frozen=True, slots=True)
class ProjectGroups:
    """Which group each project of a client is in: the one place a move changes.

    A project's group is a fact about the project, recorded by the first write or key that
    names both, and changed only by a move. A project moved out of every group is recorded
    with ``""``: unlike a project never recorded, its keys' groups no longer count. Example:
    ``ProjectGroups({("acme", "web"): "frontend"}).group_of("acme", "web") == "frontend"``.
    """

    groups: Mapping[tuple[str, str], str] = field(default_factory=dict)

    def group_of(self, client_id: str, project_id: str) -> str:
        """The project's group; ``""`` when it is in none."""
        return self.groups.get((client_id, project_id), "")

    def recorded(self, client_id: str, project_id: str) -> str | None:
        """The project's recorded group (``""``: moved out of every group); ``None`` when
        nothing is recorded for it."""
        return self.groups.get((client_id, project_id))

    def reader_group(self, reader: Scope) -> str:
        """The group a reader sees as: its project's recorded one, else (nothing recorded)
        the one its scope names."""
        if reader.project_id:
            recorded = self.recorded(reader.client_id, reader.project_id)
            return reader.group_id if recorded is None else recorded
        return reader.group_id

    @classmethod
    def stamped(cls, rows: Iterable[Scope]) -> ProjectGroups:
        """The groups that writing ``rows`` records: each project with the group it names."""
        return cls(
            {(r.client_id, r.project_id): r.group_id for r in rows if r.project_id and r.group_id}
        )


NO_GROUPS = ProjectGroups()


@lru_cache(maxsize=4096)
def stored_scope(client_id: str, project_id: str, group_id: str) -> Scope:
    """The ``Scope`` of a stored row; shared, because reads meet the same few scopes in
    thousands of rows and validating each one showed up in profiles."""
    return Scope(client_id, project_id, group_id)
