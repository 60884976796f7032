"""Arguments the memory tools share: whose memory (``user_key``), which agent (``agent_id``)
and why a change is made (``reason``); those of ``record_task_outcome``; and
``request_fields``, which hands a tool's arguments to its use case's request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from kenning.mcp.calls import to_scope

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

TaskId = Annotated[str, Field(description="The task's id; recording again replaces it.")]
OutcomeSummary = Annotated[
    str | None, Field(description="What was done and how it ended (or give raw_context).")
]
RawContext = Annotated[
    str | None,
    Field(
        description="Your notes or transcript of the task (at most 32,000 characters), "
        "instead of summary and the lists: the server extracts them in the background."
    ),
]
HasStepResults = Annotated[bool, Field(description="The task produced step results.")]
TaskError = Annotated[str | None, Field(description="The error the task ended with.")]
FinalResult = Annotated[str | None, Field(description="The task's final answer.")]
Items = Annotated[list[str], Field(description="Short items, one per entry.")]
Artifacts = Annotated[
    list[str] | None, Field(description="Files the task touched (become file: nodes).")
]
Topics = Annotated[list[str] | None, Field(description="Topics, stored as tags.")]


def request_fields(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's arguments (its ``locals()``, read first) as the fields of its use case's
    request, which names them alike: the tool context left out, the scope argument in its
    domain form."""
    fields = {name: value for name, value in arguments.items() if name != "ctx"}
    if "scope" in fields:
        fields["scope"] = to_scope(fields["scope"])
    return fields
