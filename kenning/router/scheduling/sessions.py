"""Announced sessions: whose they are, which names are accepted, how the shared state names them.

A session belongs to the client whose key announced it. Its name lives in that client's
namespace: two clients may both announce ``chat`` and hold two sessions, and neither can reach
the other's by naming it. The key is recorded too, so a release that names no session ends
the caller key's own announcements only.

Every process shares the leases through one Redis sorted set, so the owner travels inside
each member: ``\\x1f`` then the JSON array ``[client, key, name]``. Names never hold control
characters, so that mark cannot start a name. The owner of the open router (no keys, no
client) keeps the bare name as its member, as every member was before owners were recorded;
a bare member therefore reads as that owner's.

Recent priority-0 traffic holds the GPU too, through one lease per client in the same set: the
session named `CRITICAL_TRAFFIC` (a name no announce may take) of the client with no key
(`traffic_member`). Every key of a client renews and releases that one lease, so one client's
release never ends another's hold. Kenning's own in-process calls and the open router have the
keyless owner, whose member stays the bare name.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass

from kenning.router.errors import InvalidRequest

CRITICAL_TRAFFIC = "p0-traffic"
MAX_SESSION_CHARS = 200
# Live sessions one client may hold at once: each sits in every process's shared state and in
# every status answer, so one key must not be able to add them without end.
MAX_SESSIONS_PER_CLIENT = 64
_MARK = "\x1f"
# Cc: C0 and C1 controls and DEL; Cs: lone surrogates, which JSON can carry but no UTF-8
# store can hold.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs"})


@dataclass(frozen=True)
class SessionOwner:
    """Who announced a session: the client whose namespace its name is in (``""``: none, the
    global one) and the key it came with, both as the gate reports them."""

    client: str = ""
    key: str = ""


# Sessions announced with no key: on the open router, and by in-process calls.
KEYLESS = SessionOwner()


@dataclass(frozen=True)
class Session:
    """One announced session: its owner and the name the owner gave it."""

    owner: SessionOwner
    name: str

    @property
    def member(self) -> str:
        """The session's member in the shared lease set."""
        if self.owner == KEYLESS:
            return self.name
        return _MARK + json.dumps([self.owner.client, self.owner.key, self.name])

    @classmethod
    def parse(cls, member: str) -> Session:
        """The session a member of the shared lease set stands for."""
        if member.startswith(_MARK):
            try:
                parts = json.loads(member[1:])
            except ValueError:
                parts = None
            if (
                isinstance(parts, list)
                and len(parts) == 3
                and all(isinstance(p, str) for p in parts)
            ):
                client, key, name = parts
                return cls(SessionOwner(client, key), name)
        return cls(KEYLESS, member)

    @property
    def traffic(self) -> bool:
        """True for a client's lease of recent priority-0 traffic, not an announced session."""
        return self.name == CRITICAL_TRAFFIC

    def ended_by(self, name: str | None, caller: SessionOwner, *, all_sessions: bool) -> bool:
        """True when a release naming ``name`` (None: no name) by ``caller`` ends this session.

        A caller with ``all_sessions`` ends every session, or every client's named ``name``
        (status lists sessions by name). Anyone else ends sessions of its own client only:
        the one named ``name``, or without a name the ones its own key announced.
        """
        if all_sessions:
            return name is None or self.name == name
        if self.owner.client != caller.client:
            return False
        return self.owner.key == caller.key if name is None else self.name == name


def traffic_member(owner: SessionOwner) -> str:
    """The member of the lease that ``owner``'s client's priority-0 traffic renews.

    Per client, not per key: a client's keys release each other's sessions by name, and an
    orchestrator may announce with one key while its chat sends priority 0 with another.
    """
    return Session(SessionOwner(owner.client), CRITICAL_TRAFFIC).member


def session_name(value: object) -> str | None:
    """The ``session`` of an announce or release body, checked; None when it names none
    (absent, null or ``""``).

    Raises `InvalidRequest` naming the field: not a string, over `MAX_SESSION_CHARS`
    characters, holding a control character, or the reserved `CRITICAL_TRAFFIC`.
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InvalidRequest(f"session must be a string, got {_json_kind(value)}", field="session")
    if len(value) > MAX_SESSION_CHARS:
        raise InvalidRequest(
            f"session must be at most {MAX_SESSION_CHARS} characters, got {len(value)}",
            field="session",
            code="TOO_LARGE",
        )
    if any(unicodedata.category(c) in _REFUSED_CATEGORIES for c in value):
        raise InvalidRequest(
            "session must not contain control characters or lone surrogates", field="session"
        )
    if value == CRITICAL_TRAFFIC:
        raise InvalidRequest(
            f"session {CRITICAL_TRAFFIC!r} is reserved for the lease of priority-0 traffic",
            field="session",
        )
    return value


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"
