"""``updateNode`` and ``nodeHistory`` over the fake of their store: who may correct, what a
correction checks before it writes, the answer for a node not at the caller's scope, pages of
versions, and the change-log records of node corrections and edge retractions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.node_properties import PropertyChange
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory.changes import ChangeAction, ItemKind
from kenning.domain.memory.graph_changes import node_change, retraction_change
from kenning.domain.memory.node_history import Correction, NodeUpdate, node_history, update_node
from tests.fakes.node_history import FakeNodeHistory

ACME = Scope("acme")
AGENT = Principal(key_id="agent-1", scope=ACME, role=Role.AGENT)
REJECT = SecretPolicy.REJECT


@pytest.fixture
def store() -> FakeNodeHistory:
    found = FakeNodeHistory()
    found.add(ACME, "service:billing", owner="team:billing", tier=1)
    return found


async def test_a_correction_reaches_the_store_with_who_why_and_when(
    store: FakeNodeHistory,
) -> None:
    at = datetime(2025, 6, 1, 9, tzinfo=UTC)
    updated = await update_node(
        AGENT,
        ACME,
        "service:billing",
        {"owner": "team:payments"},
        ["tier"],
        store,
        REJECT,
        reason="  handed over  ",
        observed_at=at,
    )
    assert updated.changes == (
        PropertyChange("owner", "team:billing", "team:payments"),
        PropertyChange("tier", 1, None, removed=True),
    )
    assert store.corrections == [Correction("agent-1", "handed over", at)]


async def test_a_node_not_at_the_callers_scope_is_not_found(store: FakeNodeHistory) -> None:
    with pytest.raises(NotFoundError) as raised:
        await update_node(AGENT, ACME, "service:nobody", {"a": 1}, None, store, REJECT)
    assert raised.value.field == "key"


async def test_a_read_only_key_may_not_correct(store: FakeNodeHistory) -> None:
    viewer = Principal(key_id="ui-1", scope=ACME, role=Role.UI)
    with pytest.raises(ScopeError):
        await update_node(viewer, ACME, "service:billing", {"a": 1}, None, store, REJECT)
    assert store.corrections == []


@pytest.mark.parametrize(
    ("reason", "observed_at", "error", "field"),
    [
        ("r" * 1001, None, TooLargeError, "reason"),
        (None, datetime(1850, 1, 1, tzinfo=UTC), ValidationError, "observedAt"),
        (None, datetime(2025, 1, 1), ValidationError, "observedAt"),  # no time zone
    ],
)
async def test_a_bad_reason_or_time_writes_nothing(
    store: FakeNodeHistory,
    reason: str | None,
    observed_at: datetime | None,
    error: type[Exception],
    field: str,
) -> None:
    with pytest.raises(error) as raised:
        await update_node(
            AGENT,
            ACME,
            "service:billing",
            {"a": 1},
            None,
            store,
            REJECT,
            reason=reason,
            observed_at=observed_at,
        )
    assert getattr(raised.value, "field", None) == field and store.corrections == []


async def test_history_pages_newest_first_and_filters_by_name(store: FakeNodeHistory) -> None:
    for tier in (2, 3):
        await update_node(AGENT, ACME, "service:billing", {"tier": tier}, None, store, REJECT)
    first = await node_history(ACME, "service:billing", store, first=2)
    assert [(v.name, v.value) for v in first.nodes] == [("tier", 3), ("tier", 2)]
    assert first.has_next_page and first.end_cursor
    rest = await node_history(ACME, "service:billing", store, first=2, after=first.end_cursor)
    assert [(v.name, v.value) for v in rest.nodes] == [("tier", 1), ("owner", "team:billing")]
    tiers = await node_history(ACME, "service:billing", store, name="tier")
    assert [v.value for v in tiers.nodes] == [3, 2, 1]
    assert (await node_history(Scope("globex"), "service:billing", store)).nodes == ()
    with pytest.raises(ValidationError) as bad:
        await node_history(ACME, "service:billing", store, first=51)
    assert bad.value.field == "first"
    with pytest.raises(ValidationError) as foreign:
        await node_history(ACME, "service:billing", store, after="bm90LWEtY3Vyc29y")
    assert foreign.value.field == "after"


def test_the_change_log_records_of_the_graph() -> None:
    update = NodeUpdate(
        "service:billing",
        ACME,
        (
            PropertyChange("owner", "team:billing", "team:payments"),
            PropertyChange("pager", None, "p1"),
            PropertyChange("tier", 1, None, removed=True),
        ),
    )
    change = node_change(update, Correction("agent-1", "why"))
    assert (change.kind, change.item_id, change.item_key, change.action) == (
        ItemKind.NODE,
        "service:billing",
        "service:billing",
        ChangeAction.UPDATE,
    )
    assert change.old == {"owner": "team:billing", "tier": 1}
    assert change.new == {"owner": "team:payments", "pager": "p1"}
    edge = retraction_change(ACME, ("service:billing", "database", "db:pg"), "agent-1", None)
    assert (edge.kind, edge.item_id, edge.item_key, edge.action) == (
        ItemKind.EDGE,
        "service:billing|database|db:pg",
        "service:billing",
        ChangeAction.RETRACT,
    )
