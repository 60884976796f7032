"""Whose memory an item is: one user's, or shared by every user of its scope.

User knowledge, session entries and procedures belong to a subject: ``user_key`` names the
user (a node key such as ``user:alice``, canonicalized as the graph's keys are) and None
means shared (client- or project-wide). ``agent_id`` says which agent learned it. A read
for one user returns that user's items and the shared ones, never another user's; a read
naming no user returns the shared ones only, so an agent that forgets to say whom it serves
cannot hand one user another's preferences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.rules import check_identifiers

MAX_AGENT_ID: Final = 200


@dataclass(frozen=True, slots=True)
class Owner:
    """The user an item belongs to (None: shared) and the agent that learned it."""

    user_key: str | None = None
    agent_id: str | None = None

    @property
    def stored_user(self) -> str:
        """The ``user_key`` column: ``""`` for a shared item."""
        return self.user_key or ""


SHARED: Final = Owner()


def user_key_of(value: str | None, field: str = "userKey") -> str | None:
    """The canonical node key of ``value`` (None stays None); ``ValidationError`` naming
    ``field`` unless it parses as ``type:id``. Example: ``" User:Alice "`` -> ``user:Alice``."""
    if value is None:
        return None
    key = parse_key(value, field=field).key
    check_identifiers([(field, key)])
    return key


def agent_id_of(value: str | None, field: str = "agentId") -> str | None:
    """``value`` trimmed when it is 1..200 printable characters; None stays None."""
    if value is None:
        return None
    if not value.strip() or len(value) > MAX_AGENT_ID or not value.isprintable():
        raise ValidationError(
            f"{field} must be 1..{MAX_AGENT_ID} printable characters", field=field
        )
    check_identifiers([(field, value.strip())])
    return value.strip()


def owner_of(user_key: str | None, agent_id: str | None) -> Owner:
    """The checked owner of a write; each bad argument is named (``userKey``, ``agentId``)."""
    return Owner(user_key_of(user_key), agent_id_of(agent_id))
