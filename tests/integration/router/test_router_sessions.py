"""Announced sessions belong to the client and key that announced them: another client's
release leaves them in place (and learns nothing of them), a release without a name drops the
caller key's own, a global admin may drop every one; session names are checked."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.router.scheduling.sessions import CRITICAL_TRAFFIC
from tests.support.kenning_stack import Kenning
from tests.support.router_sessions import (
    EMBED,
    GENERATE,
    P0,
    Keys,
    control,
    hidden_leases,
    holds,
    sessions,
    status,
    swaps,
)

pytestmark = pytest.mark.integration


async def test_another_clients_release_leaves_the_session_and_the_gpu(
    kenning: Kenning, keys: Keys
) -> None:
    ready = await control(kenning, "announce", keys.acme, {"session": "chat"})
    assert ready.status_code == 200, ready.text
    assert ready.json()["status"] == "ready" and ready.json()["session"] == "chat"
    assert await holds(kenning) == "orchestrator"
    swapped = await swaps(kenning)

    unknown = await control(kenning, "release", keys.globex, {"session": "no-such-session"})
    named = await control(kenning, "release", keys.globex, {"session": "chat"})
    everything = await control(kenning, "release", keys.globex, {})
    assert [a.status_code for a in (unknown, named, everything)] == [200, 200, 200]
    assert await holds(kenning) == "orchestrator"
    assert await sessions(kenning) == {("acme", "chat")}
    # Answered as for a session that does not exist: globex learns nothing of acme's "chat".
    assert named.json() == {**unknown.json(), "session": "chat"}
    assert everything.json() == {**unknown.json(), "session": None}
    # acme's orchestrator keeps the GPU: priority 0 runs there with no swap away and back,
    # and background work stays off it.
    p0 = await kenning.http.post("/ollama/api/generate", json=GENERATE, headers={**keys.acme, **P0})
    assert p0.status_code == 200 and p0.headers["x-kenning-backend"] == "gpu0"
    background = await kenning.http.post("/ollama/api/embed", json=EMBED, headers=keys.globex)
    assert background.headers["x-kenning-backend"] == "cpu"
    assert await swaps(kenning) == swapped

    released = await control(kenning, "release", keys.acme, {"session": "chat"})
    assert released.json() == {"status": "released", "session": "chat", "remaining_leases": 0}
    assert await holds(kenning) == "background"


async def test_two_clients_may_announce_the_same_name(kenning: Kenning, keys: Keys) -> None:
    await control(kenning, "announce", keys.acme, {"session": "chat"})
    counted = await hidden_leases(kenning, keys.globex)
    ready = await control(kenning, "announce", keys.globex, {"session": "chat"})
    assert ready.json()["status"] == "ready" and ready.json()["session"] == "chat"
    # globex's "chat" is a lease of its own, counted as one: the count does not give away
    # that acme uses the name too.
    assert await hidden_leases(kenning, keys.globex) == counted + 1
    assert await sessions(kenning) == {("acme", "chat"), ("globex", "chat")}

    released = await control(kenning, "release", keys.globex, {"session": "chat"})
    assert released.json()["session"] == "chat"
    assert await sessions(kenning) == {("acme", "chat")}
    assert await holds(kenning) == "orchestrator"

    await control(kenning, "release", keys.acme, {"session": "chat"})
    assert await sessions(kenning) == set()
    assert await holds(kenning) == "background"


async def test_a_release_without_a_name_drops_the_callers_own_sessions(
    kenning: Kenning, keys: Keys
) -> None:
    await control(kenning, "announce", keys.acme, {"session": "first"})
    await control(kenning, "announce", keys.acme, {})  # a generated name
    await control(kenning, "announce", keys.acme_other, {"session": "second"})
    for who in (keys.acme, keys.acme_other):  # one session of acme, announced by both keys
        await control(kenning, "announce", who, {"session": "shared"})
    await control(kenning, "announce", keys.globex, {"session": "third"})

    # The key's own sessions end, and acme's traffic lease (its announces renewed it) with
    # them. The other key of acme keeps "second", and "shared" lives on by that key's
    # announcement; globex keeps "third" and the traffic lease its announce renewed.
    released = await control(kenning, "release", keys.acme, {})
    assert released.json()["remaining_leases"] == 4
    assert CRITICAL_TRAFFIC in (await status(kenning))["leases"]
    assert await holds(kenning) == "orchestrator"
    assert await sessions(kenning) == {("acme", "second"), ("acme", "shared"), ("globex", "third")}
    shared = [s for s in (await status(kenning))["sessions"] if s["session"] == "shared"]
    assert len(shared[0]["keys"]) == 1
    # A name is the client's: one key of acme may end acme's session by its name.
    await control(kenning, "release", keys.acme, {"session": "second"})
    assert await sessions(kenning) == {("acme", "shared"), ("globex", "third")}
    assert await holds(kenning) == "orchestrator"


async def test_only_a_global_admin_ends_every_clients_sessions(
    kenning: Kenning, keys: Keys
) -> None:
    for who, name in ((keys.acme, "chat"), (keys.globex, "chat"), (keys.globex, "batch")):
        await control(kenning, "announce", who, {"session": name})
    everyone = {("acme", "chat"), ("globex", "chat"), ("globex", "batch")}

    # acme's admin manages acme's keys, not the GPU of every client: its release is its own,
    # so these end no session, only acme's traffic lease (three sessions and globex's traffic
    # lease remain).
    for body in ({}, {"session": "batch"}):
        unreached = await control(kenning, "release", keys.acme_admin, body)
        assert unreached.json()["remaining_leases"] == 4
    assert await holds(kenning) == "orchestrator"
    assert await sessions(kenning) == everyone

    # A global admin ends every client's session of a name...
    named = await control(kenning, "release", keys.admin, {"session": "chat"})
    assert named.json()["session"] == "chat"
    assert await sessions(kenning) == {("globex", "batch")}
    # ...or every session.
    every = await control(kenning, "release", keys.admin, {})
    assert every.json() == {"status": "released", "session": None, "remaining_leases": 0}
    assert await sessions(kenning) == set()
    assert await holds(kenning) == "background"


BAD_SESSIONS: list[tuple[Any, str, str]] = [
    ({"session": "x" * 201}, "TOO_LARGE", "at most 200 characters"),
    ({"session": 7}, "INVALID", "must be a string"),
    ({"session": ["chat"]}, "INVALID", "must be a string"),
    ({"session": {"name": "chat"}}, "INVALID", "must be a string"),
    ({"session": True}, "INVALID", "must be a string"),
    ({"session": "chat\n1"}, "INVALID", "control characters"),
    ({"session": "chat\x00"}, "INVALID", "control characters"),
    ({"session": "chat\x7f"}, "INVALID", "control characters"),
    ({"session": "chat\u0085"}, "INVALID", "control characters"),
    ({"session": "p0-traffic"}, "INVALID", "reserved"),
]


async def test_session_names_are_checked(kenning: Kenning, keys: Keys) -> None:
    for what in ("announce", "release"):
        for body, code, words in BAD_SESSIONS:
            refused = await control(kenning, what, keys.acme, body)
            assert refused.status_code == 400, (what, body, refused.text)
            answer = refused.json()
            assert answer["code"] == code and answer["field"] == "session", (what, body, answer)
            assert words in answer["error"] and "session" in answer["error"], answer
        for raw, words in ((b"{not json", "JSON"), (b'["chat"]', "JSON object")):
            headers = {**keys.acme, "Content-Type": "application/json"}
            refused = await kenning.http.post(f"/router/{what}", content=raw, headers=headers)
            assert refused.status_code == 400, (what, raw, refused.text)
            assert refused.json()["code"] == "INVALID" and words in refused.json()["error"]
    # A lone surrogate is no text either (and could not be stored).
    surrogate = b'{"session": "chat\\ud800"}'
    refused = await kenning.http.post("/router/announce", content=surrogate, headers=keys.acme)
    assert refused.status_code == 400 and refused.json()["field"] == "session"
    assert await sessions(kenning) == set() and await holds(kenning) == "background"

    longest = "é" * 200
    ready = await control(kenning, "announce", keys.acme, {"session": longest})
    assert ready.status_code == 200 and ready.json()["session"] == longest
    assert await sessions(kenning) == {("acme", longest)}
    released = await control(kenning, "release", keys.acme, {"session": longest})
    assert released.json()["remaining_leases"] == 0
