"""The stored name of a shared GPU slot lease says who holds it and whether it may be cut."""

from __future__ import annotations

from kenning.router.scheduling.policy import Priority
from kenning.router.state.slot_store import parse_member, slot_member


def test_a_background_slot_names_its_process_and_lease() -> None:
    member = slot_member(Priority.BACKGROUND, True, "proc1", "l7")
    assert member == "3|b|proc1|l7"
    holder = parse_member(member, 2.5)
    assert (holder.priority, holder.preemptible, holder.process, holder.lease) == (
        3,
        True,
        "proc1",
        "l7",
    )
    assert holder.expires_in == 2.5


def test_an_interactive_slot_is_not_preemptible() -> None:
    holder = parse_member(slot_member(Priority.CRITICAL, False, "p", "l1"))
    assert holder.priority == 0 and not holder.preemptible


def test_a_malformed_member_parses_without_raising() -> None:
    holder = parse_member("garbage")
    assert holder.process == "" and holder.priority == 0
