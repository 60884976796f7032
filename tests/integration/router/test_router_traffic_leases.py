"""Priority-0 traffic holds the GPU for the client that sent it: another client's announce and
release, however often repeated, neither ends that hold nor swaps the GPU away; the client's
own release does, once nobody else holds it."""

from __future__ import annotations

import uuid

import pytest

from kenning.router.scheduling.sessions import CRITICAL_TRAFFIC
from tests.support.kenning_stack import Kenning
from tests.support.router_sessions import (
    GENERATE,
    P0,
    Keys,
    control,
    holds,
    status,
    swaps,
)

pytestmark = pytest.mark.integration

INGEST = """mutation($input: IngestInput!) { ingest(input: $input) { __typename } }"""


async def p0_on_gpu(kenning: Kenning, headers: dict[str, str]) -> None:
    answer = await kenning.http.post(
        "/ollama/api/generate", json=GENERATE, headers={**headers, **P0}
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["x-kenning-backend"] == "gpu0"


async def test_a_release_loop_leaves_another_clients_priority_0_hold(
    kenning: Kenning, keys: Keys
) -> None:
    # globex's orchestrator sends priority 0 without announcing: its traffic holds the GPU.
    await p0_on_gpu(kenning, keys.globex)
    assert await holds(kenning) == "orchestrator"
    assert CRITICAL_TRAFFIC in (await status(kenning))["leases"]
    swapped = await swaps(kenning)

    for body in ({"session": "mine"}, {}, {"session": "mine"}):
        ready = await control(kenning, "announce", keys.acme, {"session": "mine"})
        assert ready.json()["status"] == "ready", ready.text
        released = await control(kenning, "release", keys.acme, body)
        # acme's own session and traffic are gone; globex's traffic lease is left.
        assert released.json()["remaining_leases"] == 1, released.text
        assert await holds(kenning) == "orchestrator"
    assert CRITICAL_TRAFFIC in (await status(kenning))["leases"]
    # globex's next priority-0 request runs on the set it left: no swap away and back.
    await p0_on_gpu(kenning, keys.globex)
    assert await swaps(kenning) == swapped

    # globex's own release hands the GPU back at once: nobody else holds it.
    released = await control(kenning, "release", keys.globex, {})
    assert released.json()["remaining_leases"] == 0
    assert await holds(kenning) == "background"


async def test_kennings_own_priority_0_calls_outlive_a_clients_release(
    kenning: Kenning, keys: Keys
) -> None:
    # An ingest at priority 0 embeds in-process at priority 0: Kenning's own traffic.
    data = {"sourceUrn": f"doc:p0:{uuid.uuid4().hex}", "kind": "note", "content": "urgent"}
    result = await kenning.graphql(INGEST, input={**data, "priority": 0})
    assert result["data"]["ingest"]["__typename"] == "IngestSuccess", result
    assert await holds(kenning) == "orchestrator"

    await control(kenning, "announce", keys.acme, {"session": "mine"})
    released = await control(kenning, "release", keys.acme, {"session": "mine"})
    assert released.json()["remaining_leases"] == 1
    assert await holds(kenning) == "orchestrator"


async def test_sibling_keys_share_their_clients_traffic_lease(kenning: Kenning, keys: Keys) -> None:
    # Priority 0 from globex, then at once from acme's second key: each client's traffic is
    # renewed on its own, however close together they come.
    await p0_on_gpu(kenning, keys.globex)
    await p0_on_gpu(kenning, keys.acme_other)
    released = await control(kenning, "release", keys.globex, {})
    assert released.json()["remaining_leases"] == 1
    assert await holds(kenning) == "orchestrator"
    # A key of acme releases acme's traffic, whichever of its keys sent it.
    released = await control(kenning, "release", keys.acme, {})
    assert released.json()["remaining_leases"] == 0
    assert await holds(kenning) == "background"
