"""Arguments the memory tools share: whose memory (``user_key``), which agent (``agent_id``)
and why a change is made (``reason``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

UserKey = Annotated[
    str | None,
    Field(
        description="The user this memory belongs to, as a node key (e.g. 'user:alice'); "
        "omit for memory shared by everyone of the project. Reads with it return that "
        "user's items and the shared ones, never another user's."
    ),
]
AgentId = Annotated[str | None, Field(description="Your agent's id: who learned this.")]
Reason = Annotated[str | None, Field(description="Why, kept in the change log.")]
