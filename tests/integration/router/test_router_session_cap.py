"""A client holds at most 64 live sessions (`MAX_SESSIONS_PER_CLIENT`): one more is refused
429 naming the limit, while renewing a held one, another client's announce and an announce
after a release still go through."""

from __future__ import annotations

import pytest

from kenning.router.scheduling.sessions import MAX_SESSIONS_PER_CLIENT
from tests.support.kenning_stack import Kenning
from tests.support.router_sessions import Keys, control, sessions

pytestmark = pytest.mark.integration

CAP = MAX_SESSIONS_PER_CLIENT


async def test_a_client_holds_at_most_64_sessions(kenning: Kenning, keys: Keys) -> None:
    assert CAP == 64  # the limit docs/router.md states
    for n in range(CAP):  # across both of acme's keys: the limit is the client's
        who = keys.acme if n % 2 else keys.acme_other
        ready = await control(kenning, "announce", who, {"session": f"s{n}"})
        assert ready.status_code == 200, ready.text

    for body in ({"session": "one-more"}, {}):  # a generated name counts too
        refused = await control(kenning, "announce", keys.acme, body)
        assert refused.status_code == 429, refused.text
        answer = refused.json()
        assert answer["code"] == "TOO_MANY_SESSIONS" and answer["limit"] == CAP
        assert f"at most {CAP} sessions" in answer["error"]
    assert len(await sessions(kenning)) == CAP

    # Renewing a held session is no new one; another client has a limit of its own.
    renewed = await control(kenning, "announce", keys.acme, {"session": "s0"})
    assert renewed.status_code == 200, renewed.text
    other = await control(kenning, "announce", keys.globex, {"session": "s0"})
    assert other.status_code == 200, other.text
    # A release makes room.
    await control(kenning, "release", keys.acme, {"session": "s1"})
    ready = await control(kenning, "announce", keys.acme, {"session": "one-more"})
    assert ready.status_code == 200, ready.text
    assert len(await sessions(kenning)) == CAP + 1
