"""Each client's priority-0 traffic renews a lease of its own (`SessionLeases`), and a release
ends the caller's client's lease only, on the router's local state."""

from __future__ import annotations

import asyncio

from kenning.router import RouterSettings
from kenning.router.scheduling.leases import LiveLeases, SessionLeases
from kenning.router.scheduling.sessions import (
    CRITICAL_TRAFFIC,
    KEYLESS,
    SessionOwner,
    traffic_member,
)
from kenning.router.state.state import ResilientState

ACME = SessionOwner("acme", "key-1")
ACME_OTHER = SessionOwner("acme", "key-2")
GLOBEX = SessionOwner("globex", "key-3")


def leases() -> SessionLeases:
    return SessionLeases(RouterSettings(), ResilientState(None))


async def settled(leases: SessionLeases) -> dict[str, float]:
    """The live lease members once the background renewals have been written."""
    await asyncio.sleep(0)
    return await leases.state.leases()


def test_a_clients_traffic_lease_is_one_for_all_its_keys() -> None:
    assert traffic_member(ACME) == traffic_member(ACME_OTHER) != traffic_member(GLOBEX)
    # Kenning's own calls and the open router keep the name the one shared lease had.
    assert traffic_member(KEYLESS) == CRITICAL_TRAFFIC


async def test_one_clients_traffic_does_not_hold_back_anothers_renewal() -> None:
    held = leases()
    held.touch_traffic(GLOBEX)
    held.touch_traffic(ACME)  # within the same second
    assert set(await settled(held)) == {traffic_member(GLOBEX), traffic_member(ACME)}


async def test_a_release_ends_its_own_clients_traffic_only() -> None:
    held = leases()
    for owner in (GLOBEX, ACME, KEYLESS):
        held.touch_traffic(owner)
    await held.announce("chat", ACME)
    await settled(held)

    await held.release("chat", ACME_OTHER, all_sessions=False)
    assert set(await held.state.leases()) == {traffic_member(GLOBEX), CRITICAL_TRAFFIC}
    # Released, the client's next priority-0 request renews its lease at once.
    held.touch_traffic(ACME)
    assert traffic_member(ACME) in await settled(held)

    # A caller who may end every session, naming one, ends its own traffic lease only...
    await held.release("chat", KEYLESS, all_sessions=True)
    assert set(await held.state.leases()) == {traffic_member(GLOBEX), traffic_member(ACME)}
    # ...and without a name, every lease.
    await held.release(None, KEYLESS, all_sessions=True)
    assert await held.state.leases() == {}


def test_the_traffic_leases_of_several_clients_count_as_one() -> None:
    live = LiveLeases.of(
        {traffic_member(ACME): 110.0, traffic_member(GLOBEX): 130.0, CRITICAL_TRAFFIC: 120.0}
    )
    assert live.traffic == 130.0 and live.sessions == [] and live.count == 1
    assert live.by_name() == {CRITICAL_TRAFFIC: 130.0}
