"""The visibility rule (``Scope.can_see``) and who may act as which scope."""

from __future__ import annotations

import pytest

from kenning.domain.access.project_groups import settled
from kenning.domain.access.scope import NO_GROUPS, ProjectGroups, Scope, ScopeLevel
from kenning.domain.errors import ScopeError, ValidationError

GROUPS = ProjectGroups(
    {("acme", "web"): "frontend", ("acme", "mobile"): "frontend", ("acme", "api"): "backend"}
)
READER = Scope("acme", "web", "frontend")


@pytest.mark.parametrize(
    ("row", "visible"),
    [
        (Scope(), True),  # global
        (Scope("acme"), True),  # the reader's client
        (Scope("acme", "", "frontend"), True),  # the reader's group
        (Scope("acme", "web", "frontend"), True),  # the reader's project
        (Scope("acme", "web"), True),  # the reader's project, stored without its group
        (Scope("acme", "mobile", "frontend"), True),  # another project of the same group
        (Scope("acme", "mobile"), True),  # ... whatever group its row names
        (Scope("acme", "api", "backend"), False),  # a project of another group
        (Scope("acme", "api", "frontend"), False),  # its row's stamp does not decide
        (Scope("acme", "solo"), False),  # a project in no group
        (Scope("acme", "", "backend"), False),  # another group
        (Scope("globex"), False),  # another client
        (Scope("globex", "web", "frontend"), False),  # same names, other client
    ],
)
def test_a_project_reader_sees_its_group_by_the_recorded_groups(row: Scope, visible: bool) -> None:
    assert READER.can_see(row, GROUPS) is visible


@pytest.mark.parametrize(
    ("reader", "row", "visible"),
    [
        (Scope(), Scope("acme", "api", "backend"), True),  # global sees all
        (Scope("acme"), Scope("acme", "api", "backend"), True),  # a client sees its projects
        (Scope("acme"), Scope("acme", "", "backend"), True),
        (Scope("acme"), Scope("globex"), False),
        (Scope("acme", "", "frontend"), Scope("acme", "mobile"), True),  # group's project
        (Scope("acme", "", "frontend"), Scope("acme", "api", "backend"), False),
        # A project key without a group follows its project's group.
        (Scope("acme", "web"), Scope("acme", "mobile", "frontend"), True),
        # A project in no group: the reader's own scope names its group.
        (Scope("acme", "solo", "frontend"), Scope("acme", "mobile"), True),
        (Scope("acme", "solo"), Scope("acme", "", "frontend"), False),
        # A project moved elsewhere: its group, not the key's stale one, decides.
        (Scope("acme", "api", "frontend"), Scope("acme", "mobile"), False),
        (Scope("acme", "api", "frontend"), Scope("acme", "", "backend"), True),
    ],
)
def test_the_rule_is_hierarchical(reader: Scope, row: Scope, visible: bool) -> None:
    assert reader.can_see(row, GROUPS) is visible


def test_a_project_taken_out_of_its_group_leaves_its_keys_group_behind() -> None:
    out = ProjectGroups({**GROUPS.groups, ("acme", "web"): ""})
    stale_key = Scope("acme", "web", "frontend")
    assert not stale_key.can_see(Scope("acme", "mobile"), out)
    assert not stale_key.can_see(Scope("acme", "", "frontend"), out)
    assert stale_key.can_see(Scope("acme", "web", "frontend"), out)  # its own project
    assert not Scope("acme", "", "frontend").can_see(Scope("acme", "web", "frontend"), out)
    # A project never recorded still takes its key's group.
    assert Scope("acme", "solo", "frontend").can_see(Scope("acme", "mobile"), out)


def test_a_move_changes_what_both_groups_see_at_once() -> None:
    row = Scope("acme", "web", "frontend")
    moved = ProjectGroups({**GROUPS.groups, ("acme", "web"): "backend"})
    assert Scope("acme", "", "frontend").can_see(row, GROUPS)
    assert not Scope("acme", "", "frontend").can_see(row, moved)
    assert Scope("acme", "api").can_see(row, moved)
    assert not Scope("acme", "api").can_see(row, GROUPS)


def test_levels() -> None:
    assert Scope().level is ScopeLevel.GLOBAL
    assert Scope("a").level is ScopeLevel.CLIENT
    assert Scope("a", "", "g").level is ScopeLevel.GROUP
    assert Scope("a", "p", "g").level is ScopeLevel.PROJECT


def test_project_without_client_is_invalid() -> None:
    with pytest.raises(ValidationError, match="clientId"):
        Scope("", "web")


@pytest.mark.parametrize(
    ("key", "narrow", "allowed"),
    [
        (Scope(), Scope("globex", "web", "front"), True),  # a global key acts for anyone
        (Scope("acme"), Scope("acme", "web", "front"), True),  # a client owns its projects
        (Scope("acme"), Scope("globex"), False),
        (Scope("acme", "web", "front"), Scope("acme", "web", "front"), True),
        (Scope("acme", "web", "front"), Scope("acme", "web"), True),  # dropping the group
        (Scope("acme", "web", "front"), Scope("acme"), False),  # broader: a widening
        (Scope("acme", "web", "front"), Scope("acme", "", "front"), False),
        # Filling in a group shows that group's rows: wider, not narrower.
        (Scope("acme", "web"), Scope("acme", "web", "finance"), False),
        # A group key filling in a project might name one of another group.
        (Scope("acme", "", "front"), Scope("acme", "payroll", "front"), False),
        (Scope("acme", "web", "front"), Scope("acme", "web", "back"), False),
    ],
)
def test_a_key_may_narrow_but_never_fill_in(key: Scope, narrow: Scope, allowed: bool) -> None:
    assert key.narrows_to(narrow) is allowed


@pytest.mark.parametrize(
    ("target", "writer", "current", "outcome"),
    [
        # Naming no group, or the recorded one: stored as named, nothing to record.
        (Scope("a", "p"), Scope("a", "p"), "g", (Scope("a", "p"), False)),
        (Scope("a", "p", "g"), Scope("a"), "g", (Scope("a", "p", "g"), False)),
        # The first group named by a client-wide key, or by the project's own key, is recorded.
        (Scope("a", "p", "g"), Scope("a"), None, (Scope("a", "p", "g"), True)),
        (Scope("a", "p", "g"), Scope(), None, (Scope("a", "p", "g"), True)),
        (Scope("a", "p", "g"), Scope("a", "p", "g"), None, (Scope("a", "p", "g"), True)),
        # A project taken out of every group: its old key writes at no group.
        (Scope("a", "p", "g"), Scope("a", "p", "g"), "", (Scope("a", "p"), False)),
        # A key minted before its project moved writes at the project's group now.
        (Scope("a", "p", "g"), Scope("a", "p", "g"), "h", (Scope("a", "p", "h"), False)),
    ],
)
def test_settling_a_write(
    target: Scope, writer: Scope, current: str | None, outcome: tuple[Scope, bool]
) -> None:
    assert settled(target, writer, current) == outcome


@pytest.mark.parametrize(
    ("target", "writer", "current", "message"),
    [
        (Scope("a", "p", "h"), Scope("a"), "g", "is in group 'g', not 'h'"),
        (Scope("a", "p", "g"), Scope("a", "", "g"), None, "is in no group yet"),
        # A write never undoes a move out of every group, not even a client-wide key's.
        (Scope("a", "p", "g"), Scope("a"), "", "was taken out of its group"),
    ],
)
def test_a_write_may_not_put_a_project_in_another_group(
    target: Scope, writer: Scope, current: str | None, message: str
) -> None:
    with pytest.raises(ScopeError, match=message):
        settled(target, writer, current)


def test_without_recorded_groups_a_project_reader_uses_its_scopes_group() -> None:
    assert Scope("acme", "web", "frontend").can_see(Scope("acme", "", "frontend"), NO_GROUPS)
    assert not Scope("acme", "web").can_see(Scope("acme", "", "frontend"), NO_GROUPS)
