"""Session names and owners (`kenning.router.sessions`), the live leases they group into, and
the status a caller who sees no names gets."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.router import InvalidRequest
from kenning.router.http.control import public_status
from kenning.router.scheduling.leases import HeldSession, LiveLeases
from kenning.router.scheduling.sessions import (
    CRITICAL_TRAFFIC,
    KEYLESS,
    Session,
    SessionOwner,
    session_name,
)

ACME = SessionOwner("acme", "key-1")
ACME_OTHER = SessionOwner("acme", "key-2")
GLOBEX = SessionOwner("globex", "key-3")


@pytest.mark.parametrize(
    "session",
    [
        Session(ACME, "chat"),
        Session(SessionOwner('a\u00e9/"]', 'k"'), '["x", "y", "z"]'),
        Session(SessionOwner("", "root"), "chat"),
        Session(KEYLESS, "chat"),
    ],
)
def test_a_member_reads_back_as_its_session(session: Session) -> None:
    assert Session.parse(session.member) == session


def test_the_open_routers_members_stay_bare_names() -> None:
    # Also how every member read before owners were recorded.
    assert Session(KEYLESS, "chat").member == "chat"
    assert Session.parse("chat") == Session(KEYLESS, "chat")
    for odd in ("\x1fnot json", '\x1f"abc"', '\x1f["a", "b"]', '\x1f["a", "b", 3]'):
        assert Session.parse(odd) == Session(KEYLESS, odd)
    assert Session(ACME, "chat").member != Session(GLOBEX, "chat").member


def test_who_ends_a_session() -> None:
    chat = Session(ACME, "chat")
    # Another client reaches it neither by name nor without one.
    assert not chat.ended_by("chat", GLOBEX, all_sessions=False)
    assert not chat.ended_by(None, GLOBEX, all_sessions=False)
    # Its client's keys reach it by name; without a name, only the key that announced it.
    assert chat.ended_by("chat", ACME_OTHER, all_sessions=False)
    assert chat.ended_by(None, ACME, all_sessions=False)
    assert not chat.ended_by(None, ACME_OTHER, all_sessions=False)
    assert not chat.ended_by("other", ACME, all_sessions=False)
    # A caller with every session in reach: all of them, or every client's of a name.
    assert chat.ended_by(None, KEYLESS, all_sessions=True)
    assert chat.ended_by("chat", KEYLESS, all_sessions=True)
    assert not chat.ended_by("other", KEYLESS, all_sessions=True)


@pytest.mark.parametrize("value", [None, ""])
def test_no_name(value: object) -> None:
    assert session_name(value) is None


@pytest.mark.parametrize("value", ["chat-1", "x" * 200, "é" * 200, "two words", "日本"])
def test_names_accepted(value: str) -> None:
    assert session_name(value) == value


@pytest.mark.parametrize(
    ("value", "code", "words"),
    [
        ("x" * 201, "TOO_LARGE", "at most 200 characters, got 201"),
        (7, "INVALID", "must be a string, got a number"),
        (1.5, "INVALID", "must be a string, got a number"),
        (False, "INVALID", "must be a string, got a boolean"),
        (["chat"], "INVALID", "must be a string, got an array"),
        ({"name": "chat"}, "INVALID", "must be a string, got an object"),
        ("tab\there", "INVALID", "control characters"),
        ("\x1fchat", "INVALID", "control characters"),
        ("del\x7f", "INVALID", "control characters"),
        ("c1\x9b", "INVALID", "control characters"),
        ("lone\ud800", "INVALID", "lone surrogates"),
        (CRITICAL_TRAFFIC, "INVALID", "reserved"),
    ],
)
def test_names_refused(value: object, code: str, words: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        session_name(value)
    assert refused.value.field == "session" and refused.value.code == code
    assert words in refused.value.message


def test_live_leases_keep_each_clients_session_apart() -> None:
    members = {
        Session(ACME, "chat").member: 110.0,
        Session(ACME_OTHER, "chat").member: 120.0,
        Session(GLOBEX, "chat").member: 105.0,
        CRITICAL_TRAFFIC: 130.0,
    }
    live = LiveLeases.of(members)
    assert live.traffic == 130.0
    assert live.sessions == [
        HeldSession("acme", "chat", ("key-1", "key-2"), 120.0),
        HeldSession("globex", "chat", ("key-3",), 105.0),
    ]
    assert live.count == 3
    assert live.by_name() == {CRITICAL_TRAFFIC: 130.0, "chat": 120.0}


def test_a_caller_without_names_counts_every_session() -> None:
    status: dict[str, Any] = {
        "leases": {CRITICAL_TRAFFIC: 30.0, "chat": 20.0},
        "sessions": [
            {"session": "chat", "client": "acme", "keys": ["key-1"], "expires_in": 20.0},
            {"session": "chat", "client": "globex", "keys": ["key-3"], "expires_in": 5.0},
        ],
        "backends": [],
        "recent_events": [],
    }
    public = public_status(status)
    assert public["leases"] == {CRITICAL_TRAFFIC: 30.0, "hidden-1": 20.0, "hidden-2": 5.0}
    assert public["sessions"] == [
        {"session": None, "client": None, "keys": None, "expires_in": 20.0},
        {"session": None, "client": None, "keys": None, "expires_in": 5.0},
    ]
