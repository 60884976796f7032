"""Scopes and the visibility rule of ARCHITECTURE.md's scope table."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from kenning.domain.errors import ScopeError, ValidationError

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

    def can_see(self, row: Scope) -> bool:
        """True when a reader with this scope may see a row stored with ``row``'s scope."""
        if row.client_id not in ("", self.client_id):
            return False
        if row.project_id == "" and row.group_id == "":
            return True
        if row.project_id and row.project_id == self.project_id:
            return True
        return bool(row.group_id) and row.group_id == self.group_id

    def ensure_can_write(self, target: Scope) -> None:
        """Raise ``ScopeError`` unless a caller with this scope may write at ``target``.

        A writer writes at its own scope or narrower, never wider or elsewhere.
        """
        if not self.contains(target):
            raise ScopeError(f"cannot write at scope {target.describe()} from {self.describe()}")

    def contains(self, other: Scope) -> bool:
        """True when ``other`` is this scope or a narrowing of it."""
        if not self.client_id:
            return True
        if other.client_id != self.client_id:
            return False
        if self.project_id and other.project_id != self.project_id:
            return False
        return not (self.group_id and other.group_id != self.group_id)

    def narrows_to(self, other: Scope) -> bool:
        """True when a key of this scope may read as ``other``, or mint a key for it.

        A global key may act for any scope, and a client key for any scope of its client:
        they own them. A project or group key may only act as itself: a broader scope is a
        widening, and a more specific one would see more, not less (adding a group shows
        that group's rows; a group key adding a project would see that project's rows of
        other groups).
        Example: ``Scope("a").narrows_to(Scope("a", "p", "g"))`` is true,
        ``Scope("a", "", "g").narrows_to(Scope("a", "p", "g"))`` is false.
        """
        if not self.client_id:
            return True
        if other.client_id != self.client_id:
            return False
        return not (self.project_id or self.group_id) or other == self

    def describe(self) -> str:
        """A short human form such as ``client=acme project=web group=frontend``."""
        if not self.client_id:
            return "global"
        parts = [f"client={self.client_id}"]
        if self.project_id:
            parts.append(f"project={self.project_id}")
        if self.group_id:
            parts.append(f"group={self.group_id}")
        return " ".join(parts)


GLOBAL = Scope()


@lru_cache(maxsize=4096)
def stored_scope(client_id: str, project_id: str, group_id: str) -> Scope:
    """The ``Scope`` of a stored row; shared, because reads meet the same few scopes in
    thousands of rows and validating each one showed up in profiles."""
    return Scope(client_id, project_id, group_id)
