"""What a task outcome is: its category and action, the outcome as given (stripped), and why
one is not kept (``task_outcomes.py`` has the rules and the use case)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from kenning.domain.ingestion.node_keys import parse_key


class TaskCategory(StrEnum):
    """What kind of task the agent worked on."""

    SINGLE_TASK = "SINGLE_TASK"
    EPIC = "EPIC"
    GENERATIVE = "GENERATIVE"
    ADVICE = "ADVICE"


class TaskAction(StrEnum):
    """What the agent did to finish it."""

    CODE = "CODE"
    TRACKER_OPS = "TRACKER_OPS"
    MIXED = "MIXED"
    RESPOND = "RESPOND"


class NotSignificantReason(StrEnum):
    """Why an outcome is not kept, in the order the filter checks."""

    ERROR_PRESENT = "ERROR_PRESENT"
    EMPTY_FINAL_RESULT = "EMPTY_FINAL_RESULT"
    ADVICE = "ADVICE"
    RESPOND_WITHOUT_STEP_RESULTS = "RESPOND_WITHOUT_STEP_RESULTS"


REASON_MESSAGES: Final = {
    NotSignificantReason.ERROR_PRESENT: "the task ended with an error",
    NotSignificantReason.EMPTY_FINAL_RESULT: "the task has no final result",
    NotSignificantReason.ADVICE: "advice tasks are not kept",
    NotSignificantReason.RESPOND_WITHOUT_STEP_RESULTS: "it only responded, with no step results",
}


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """What ``recordTaskOutcome`` is given, stripped; ``check_outcome`` says whether it can
    be accepted."""

    task_id: str
    category: TaskCategory
    action: TaskAction
    summary: str
    has_step_results: bool = False
    error: str | None = None
    final_result: str | None = None
    key_decisions: tuple[str, ...] = ()
    patterns_used: tuple[str, ...] = ()
    artifacts: tuple[str, ...] = ()
    lessons_learned: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Frozen: the stripped forms are set here, once (stripping again changes nothing).
        for name in ("task_id", "summary"):
            object.__setattr__(self, name, getattr(self, name).strip())
        for name in ("key_decisions", "patterns_used", "lessons_learned", "topics", "artifacts"):
            object.__setattr__(self, name, tuple(item.strip() for item in getattr(self, name)))

    @property
    def source_urn(self) -> str:
        """Where the outcome's document is indexed (one per task)."""
        return f"task-outcome:{self.task_id}"

    @property
    def task_key(self) -> str:
        """The task's node key: ``task:<taskId>``, normalized."""
        return parse_key(f"task:{self.task_id}").key
