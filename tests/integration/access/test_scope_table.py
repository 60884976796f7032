"""The scope rule, row kind by reader kind, across every read path.

One fixed corpus stores a text document and a structured one (vertices with properties,
edges with evidence) at each kind of row; every row shares ``user:ann`` and the ring of
edges around it, so graph paths cross scopes wherever a reader may. The expected
visibility is written out by hand rather than computed, so it also checks the reference
rule (``Scope.can_see``) that the random test relies on. A move of a project to another
group changes what both groups see, at once, on every path.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kenning.domain.access.principal import ANONYMOUS, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import (
    GRAPH_KIND,
    TEXT_KINDS,
    Document,
    Reader,
    principal,
    tags_in,
    write_corpus,
)
from tests.support.leaks.ground_truth import snapshot
from tests.support.leaks.read_paths import Probe
from tests.support.leaks.reader_audit import audit_reader
from tests.support.leaks.scope_table import G1_ROWS, G2_ROWS, READERS, ROWS

pytestmark = pytest.mark.integration

PROBE = Probe(
    neighbors=(("user:ann", 3), ("team:core", 1)),
    paths=(("user:ann", "team:core"), ("user:bob", "doc:spec")),
    entity="user:ann",
)


def corpus() -> list[Document]:
    docs = []
    for scope, edge in ROWS.values():
        for structured in (False, True):
            docs.append(
                Document(
                    scope=scope,
                    structured=structured,
                    urn_number=1,
                    kind=GRAPH_KIND if structured else TEXT_KINDS[0],
                    edges=(edge,),
                    mentions=("user:ann",),
                    info_type="user_profile" if structured else None,
                    as_scoped_agent=False,
                    # The structured copy asserts the edge the text states: both kinds.
                    asserted=structured,
                )
            )
    return docs


@pytest.fixture
async def stored(api: Api) -> Api:
    await write_corpus(api, corpus())
    return api


@pytest.mark.parametrize("name", list(READERS))
async def test_each_reader_sees_exactly_its_rows_of_the_table_on_every_path(
    stored: Api, name: str
) -> None:
    reader, expected = READERS[name]
    rows = await snapshot(stored)
    assert {row for row, (scope, _) in ROWS.items() if rows.can_see(reader, scope)} == expected
    data = await audit_reader(stored, rows, Reader(principal(reader), None), PROBE)
    # Every visible row shows up somewhere (search returns them all), nothing else does.
    assert tags_in(json.dumps(data)) == {ROWS[row][0] for row in expected}


def _case(key: Scope, narrow: Scope, behaves_as: str | None) -> Any:
    return pytest.param(key, narrow, behaves_as, id=f"{key.describe()} -> {narrow.describe()}")


NARROWINGS = [
    # (key scope, narrowing, the reader it must behave as; None: a ScopeError)
    _case(Scope(), Scope("c2", "p1", "g1"), "other client"),
    _case(Scope("c1"), Scope("c1", "p1", "g1"), "project in group"),
    _case(Scope("c1"), Scope("c1", "", "g1"), "group"),
    # A group key naming a project would also see that project's rows of other groups.
    _case(Scope("c1", "", "g1"), Scope("c1", "p1", "g1"), None),
    _case(Scope("c1", "p1", ""), Scope("c1", "p1", "g1"), None),  # adding a group widens
    _case(Scope("c1", "p1", "g1"), Scope("c1", "p1", "g1"), "project in group"),
    _case(Scope("c1"), Scope("c2"), None),
    _case(Scope("c1", "p1", "g1"), Scope("c2", "p1", "g1"), None),
    _case(Scope("c1", "p1", "g1"), Scope("c1"), None),  # widening
    _case(Scope("c1", "p1", "g1"), Scope("c1", "", "g1"), None),  # widening to the group
    _case(Scope("c1", "", "g1"), Scope("c1", "p2", "g2"), None),  # another group
    _case(Scope("c1", "p1", "g1"), Scope(), None),  # widening to global
    _case(Scope(), Scope("c1"), "client"),
    # Dropping the group a project key names: its project's group still decides.
    _case(Scope("c1", "p1", "g1"), Scope("c1", "p1"), "project without group"),
]


@pytest.mark.parametrize(("key", "narrow", "behaves_as"), NARROWINGS)
async def test_a_key_may_narrow_its_scope_but_never_widen_or_leave_it(
    stored: Api, key: Scope, narrow: Scope, behaves_as: str | None
) -> None:
    reader = Reader(principal(key, Role.AGENT), narrow)
    assert reader.allowed == (behaves_as is not None)
    data = await audit_reader(stored, await snapshot(stored), reader, PROBE)
    if behaves_as is not None:
        narrowed = {k: v for k, v in data.items() if k.startswith("narrow_")}
        expected = READERS[behaves_as][1]
        assert tags_in(json.dumps(narrowed)) == {ROWS[row][0] for row in expected}


async def test_moving_a_project_changes_what_both_groups_see_at_once(stored: Api) -> None:
    before = await snapshot(stored)
    assert before.groups.group_of("c1", "p3") == "g1"
    assert await stored.runtime.project_groups.move("c1", "p3", "g2") == "g1"
    moved = {"sibling project", "sibling project, no group named"}
    after = await snapshot(stored)
    for reader, expected in (
        (Scope("c1", "", "g1"), G1_ROWS - moved),
        (Scope("c1", "p2"), G2_ROWS | moved),
    ):
        assert {row for row, (scope, _) in ROWS.items() if after.can_see(reader, scope)} == expected
        data = await audit_reader(stored, after, Reader(principal(reader), None), PROBE)
        assert tags_in(json.dumps(data)) == {ROWS[row][0] for row in expected}


async def test_a_request_without_a_key_reads_global_rows_only(stored: Api) -> None:
    rows = await snapshot(stored)
    data = await audit_reader(stored, rows, Reader(ANONYMOUS, None), PROBE)
    assert tags_in(json.dumps(data)) == {ROWS["global"][0]}
    for narrow in (Scope(), Scope("c1"), Scope("c1", "p1", "g1")):
        assert not Reader(ANONYMOUS, narrow).allowed
        await audit_reader(stored, rows, Reader(ANONYMOUS, narrow), PROBE)


async def test_taking_a_project_out_of_its_group_isolates_it_from_its_old_keys(
    stored: Api,
) -> None:
    assert await stored.runtime.project_groups.move("c1", "p3", "") == "g1"
    after = await snapshot(stored)
    own = {"global", "client", "sibling project", "sibling project, no group named"}
    # A key minted for p3 in g1 sees its project only; g1 no longer sees p3.
    for reader, expected in (
        (Scope("c1", "p3", "g1"), own),
        (Scope("c1", "", "g1"), G1_ROWS - own | {"global", "client"}),
    ):
        assert {row for row, (scope, _) in ROWS.items() if after.can_see(reader, scope)} == expected
        data = await audit_reader(stored, after, Reader(principal(reader), None), PROBE)
        assert tags_in(json.dumps(data)) == {ROWS[row][0] for row in expected}
