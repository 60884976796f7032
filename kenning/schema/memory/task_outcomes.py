"""Types of ``recordTaskOutcome``: the outcome an agent reports and what was done with it."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.memory.task_outcomes import NotSignificantReason, TaskAction, TaskCategory
from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import ScopeError, SensitiveContentError, ValidationError
from kenning.schema.extraction.errors import ModelUnavailable
from kenning.schema.queue.types import IngestionHandle

strawberry.enum(TaskCategory, description="What kind of task the agent worked on.")
strawberry.enum(TaskAction, description="What the agent did to finish the task.")
strawberry.enum(
    NotSignificantReason,
    description="Why an outcome is not kept: an error or an empty final result rule it out "
    "first; ADVICE tasks are never kept; a SINGLE_TASK that only responded needs step results.",
)


@strawberry.input(description="What an agent did on one task; kept only when significant.")
class TaskOutcomeInput:
    task_id: str = strawberry.field(description="Becomes the node key task:<taskId>.")
    category: TaskCategory
    action: TaskAction
    summary: str | None = strawberry.field(
        default=None,
        description="What was done, in a few sentences. Give it with the other outcome "
        "fields, or give `rawContext` instead of all of them.",
    )
    raw_context: str | None = strawberry.field(
        default=None,
        description="The agent's own notes or transcript of the task (at most 32,000 "
        "characters), instead of summary, keyDecisions, patternsUsed, artifacts, "
        "lessonsLearned and topics: a significant outcome is queued and a model writes "
        "those fields in the background, then it is stored as if they had been given.",
    )
    has_step_results: bool = strawberry.field(
        default=False, description="Whether the task's steps produced results."
    )
    error: str | None = strawberry.field(
        default=None, description="The error the task ended with; any error keeps nothing."
    )
    final_result: str | None = strawberry.field(
        default=None, description="The task's final result; empty keeps nothing. Not stored."
    )
    key_decisions: list[str] = strawberry.field(default_factory=list)
    patterns_used: list[str] = strawberry.field(default_factory=list)
    artifacts: list[str] = strawberry.field(
        default_factory=list,
        description="Files the task produced or changed; each becomes a file: node.",
    )
    lessons_learned: list[str] = strawberry.field(default_factory=list)
    topics: list[str] = strawberry.field(
        default_factory=list, description="Stored as the document's tags."
    )
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )


@strawberry.type(
    description="The outcome's document is queued in the background lane (priority 4) at "
    "`sourceUrn` (from `rawContext`, the job first has the model extract it; a failed "
    "extraction shows on the job); recording the task again replaces it."
)
class TaskOutcomeQueued:
    task_id: str
    source_urn: str
    ingestion: IngestionHandle


@strawberry.type(description="The outcome is not significant; nothing was stored.")
class TaskOutcomeNotSignificant:
    task_id: str
    reason: NotSignificantReason
    message: str


RecordTaskOutcomeResult = Annotated[
    TaskOutcomeQueued
    | TaskOutcomeNotSignificant
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | ModelUnavailable,
    strawberry.union("RecordTaskOutcomeResult"),
]
