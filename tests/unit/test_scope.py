"""The visibility rule of the scope table in ARCHITECTURE.md."""

from __future__ import annotations

import pytest

from kenning.domain.errors import ScopeError, ValidationError
from kenning.domain.scope import Scope, ScopeLevel

READER = Scope("acme", "web", "frontend")


@pytest.mark.parametrize(
    ("row", "visible"),
    [
        (Scope(), True),  # global
        (Scope("acme"), True),  # the reader's client
        (Scope("acme", "", "frontend"), True),  # the reader's group
        (Scope("acme", "web", "frontend"), True),  # the reader's project
        (Scope("acme", "mobile", "frontend"), True),  # another project of the same group
        (Scope("acme", "mobile", "backend"), False),  # a project of another group
        (Scope("acme", "", "backend"), False),  # another group
        (Scope("globex"), False),  # another client
        (Scope("globex", "web", "frontend"), False),  # same names, other client
    ],
)
def test_reader_visibility(row: Scope, visible: bool) -> None:
    assert READER.can_see(row) is visible


def test_levels() -> None:
    assert Scope().level is ScopeLevel.GLOBAL
    assert Scope("a").level is ScopeLevel.CLIENT
    assert Scope("a", "", "g").level is ScopeLevel.GROUP
    assert Scope("a", "p", "g").level is ScopeLevel.PROJECT


def test_project_without_client_is_invalid() -> None:
    with pytest.raises(ValidationError, match="clientId"):
        Scope("", "web")


def test_writes_may_narrow_but_not_widen_or_move() -> None:
    writer = Scope("acme", "", "frontend")
    writer.ensure_can_write(Scope("acme", "web", "frontend"))
    with pytest.raises(ScopeError):
        writer.ensure_can_write(Scope("acme"))
    with pytest.raises(ScopeError):
        writer.ensure_can_write(Scope("globex", "", "frontend"))


@pytest.mark.parametrize(
    ("key", "narrow", "allowed"),
    [
        (Scope(), Scope("globex", "web", "front"), True),  # a global key acts for anyone
        (Scope("acme"), Scope("acme", "web", "front"), True),  # a client owns its projects
        (Scope("acme"), Scope("globex"), False),
        (Scope("acme", "web", "front"), Scope("acme", "web", "front"), True),
        (Scope("acme", "web", "front"), Scope("acme"), False),  # broader: a widening
        # Adding a group shows that group's rows: wider, not narrower.
        (Scope("acme", "web"), Scope("acme", "web", "finance"), False),
        # A group key adding a project would see that project's rows of other groups.
        (Scope("acme", "", "front"), Scope("acme", "payroll", "front"), False),
        (Scope("acme", "web", "front"), Scope("acme", "web", "back"), False),
    ],
)
def test_a_key_may_narrow_but_never_see_more(key: Scope, narrow: Scope, allowed: bool) -> None:
    assert key.narrows_to(narrow) is allowed
