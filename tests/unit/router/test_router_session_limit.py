"""The sessions one client may hold (`SessionLeases.announce`): concurrent announces in one
process never pass the limit between them."""

from __future__ import annotations

import asyncio

import pytest

from kenning.router import RouterSettings, TooManySessions
from kenning.router.scheduling.leases import SessionLeases
from kenning.router.scheduling.sessions import SessionOwner
from kenning.router.state.state import ResilientState

ACME = SessionOwner("acme", "key-1")
GLOBEX = SessionOwner("globex", "key-2")


class SlowState(ResilientState):
    """The local state, answering a read a turn of the event loop after it was taken, as a
    Redis read does."""

    async def leases(self) -> dict[str, float]:
        read = await super().leases()
        await asyncio.sleep(0)
        return read


async def test_concurrent_announces_stop_at_the_limit() -> None:
    leases = SessionLeases(RouterSettings(), SlowState(None), max_sessions=3)
    tried = await asyncio.gather(
        *(leases.announce(f"s{n}", ACME) for n in range(10)), return_exceptions=True
    )
    refused = [r for r in tried if isinstance(r, TooManySessions)]
    assert len(refused) == 7 and all(r.limit == 3 for r in refused)
    assert len((await leases.live()).sessions) == 3
    # A held name is renewed, not counted again; another client counts on its own.
    await leases.announce("s0", ACME)
    await leases.announce("s0", GLOBEX)
    with pytest.raises(TooManySessions):
        await leases.announce("s9", ACME)
