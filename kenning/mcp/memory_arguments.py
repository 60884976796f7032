"""The memory tools' arguments, with their descriptions: those they share (whose memory,
``user_key``; which agent, ``agent_id``; why a change is made, ``reason``), then each tool's
own, and ``request_fields``, which hands a tool's arguments to its use case's request.
(``save_procedure``'s and the rule tools' stay beside them, with the models they use.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, Field

from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.domain.retrieval.context_format import ContextFormat
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

# store_knowledge, forget_knowledge
FactSubject = Annotated[str, Field(description="What the fact is about, e.g. 'editor'.")]
FactContent = Annotated[str, Field(description="The fact itself, in plain words.")]
FactCategory = Annotated[KnowledgeCategory, Field(description="Which kind of user knowledge.")]
ItemCategory = Annotated[KnowledgeCategory, Field(description="The item's category.")]
ItemSubject = Annotated[str, Field(description="The item's subject, as it was stored.")]

# append_session, get_session
EntrySummary = Annotated[str, Field(description="At most 200 characters.")]
EntryDetails = Annotated[
    dict[str, Any] | None, Field(description="A JSON object of at most 16 KiB.")
]
EntryTask = Annotated[str | None, Field(description="The task this entry belongs to.")]
Promote = Annotated[bool, Field(description="Also ingest it into the knowledge base.")]
SessionLimit = Annotated[int, Field(description="How many entries, 1..50.")]

# get_context
Query = Annotated[str, Field(description="What you are about to work on, in words.")]
ContextUser = Annotated[str | None, Field(description="The user you work for, e.g. 'user:alice'.")]
EntityKeys = Annotated[
    list[str] | None, Field(description="Other entities the task is about (at most 20).")
]
ContextLimit = Annotated[int, Field(description="How many pieces to gather, 1..50.")]
Budget = Annotated[int | None, Field(description="Characters per section (rules are never cut).")]
AsOf = Annotated[
    str | None,
    Field(
        description="Answer as things were then (ISO 8601 with a time zone); "
        "a time to come answers as now."
    ),
]
IncludeHistory = Annotated[
    bool,
    Field(
        description="Also list what no longer holds, with its validity, in a "
        "'history' section (never stated as current)."
    ),
]

ContextDepth = Annotated[
    int,
    Field(
        description="Hops of graph around the user and the entities, 1..3: each neighbour "
        "scores 1/hop and the pieces its edge links join the search's."
    ),
]
KnowledgeTypes = Annotated[
    list[str] | None, Field(description="Search only pieces of these knowledge types.")
]
EntityPieces = Annotated[
    bool,
    Field(
        description="Search only the pieces of the user and the entities (those whose graph "
        "references name one of them)."
    ),
]
PieceTags = Annotated[
    list[str] | None, Field(description="Search only pieces carrying one of these tags.")
]


class TextFormatOptions(BaseModel):
    """How get_context's text reads (the design's formatter)."""

    section_delimiter: str = Field("\n\n", description="Between sections and blocks.")
    item_delimiter: str = Field("\n---\n", description="Between knowledge items.")
    include_tags: bool = Field(True, description="A 'Tags:' line under each item with tags.")
    include_scores: bool = Field(False, description="A 'Score:' line under each item.")

    def to_domain(self) -> ContextFormat:
        """The formatter's options (a bad delimiter is a ValidationError naming it)."""
        return ContextFormat(
            self.section_delimiter, self.item_delimiter, self.include_tags, self.include_scores
        )


TextFormat = Annotated[
    TextFormatOptions | None,
    Field(description="How the text reads; default: the design's layout."),
]

# find_procedures, get_rules, user_context
TriggerPattern = Annotated[
    str | None, Field(description="The trigger to match exactly, e.g. 'deploy service'.")
]
ProcedureQuery = Annotated[
    str | None, Field(description="What you want to do, for similar procedures.")
]
ProcedureLimit = Annotated[int, Field(description="How many procedures at most.")]
RulesProject = Annotated[
    str | None, Field(description="The project whose rules apply (default: the key's).")
]
PerCategory = Annotated[
    int, Field(description="The most recently updated items kept per category.")
]

# record_task_outcome
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
