"""Task outcomes worth remembering: the significance table, the Markdown document a
significant outcome becomes, and the use case that queues it in the background lane (what an
outcome is, its category, action and reasons, lives in ``outcome_model.py``).

The caller never waits for the indexing: ``record_task_outcome`` checks the input, decides
significance and enqueues one job (or says why nothing is kept). The document lives at
``task-outcome:<taskId>``, so recording the task again replaces it; its artifacts become
``file:`` nodes linked from ``task:<taskId>`` with the document's chunks as evidence.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.request import IngestRequest, KnowledgeType
from kenning.domain.ingestion.rules import MAX_TAGS, check_identifiers, clean_content
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.memory.outcome_model import REASON_MESSAGES as REASON_MESSAGES
from kenning.domain.memory.outcome_model import NotSignificantReason as NotSignificantReason
from kenning.domain.memory.outcome_model import TaskAction as TaskAction
from kenning.domain.memory.outcome_model import TaskCategory as TaskCategory
from kenning.domain.memory.outcome_model import TaskOutcome as TaskOutcome
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import TASK_OUTCOME_PRIORITY
from kenning.domain.queue.jobs import EnqueueResult, IngestionIdentity
from kenning.domain.queue.ports import JobQueue
from kenning.domain.queue.requests import request_ingestion

logger = logging.getLogger("kenning.memory")

TASK_OUTCOME_KIND: Final = "task_outcome"
ARTIFACT_EDGE: Final = "produced"
MAX_TASK_ID, MAX_SUMMARY = 200, 20_000
MAX_ITEMS, MAX_ITEM_CHARS = 100, 2_000  # keyDecisions, patternsUsed, lessonsLearned
MAX_ARTIFACTS, MAX_ARTIFACT_CHARS = 200, 500
_PRINTABLE = re.compile(r"^[^\x00-\x1f]+$")


def check_task_id(task_id: str) -> None:
    """Raise ``ValidationError`` (field ``taskId``) unless the id can name a task node."""
    if len(task_id) > MAX_TASK_ID or not _PRINTABLE.match(task_id):
        raise ValidationError(
            f"taskId must be 1..{MAX_TASK_ID} printable characters", field="taskId"
        )
    parse_key(f"task:{task_id}", field="taskId")


def check_outcome(outcome: TaskOutcome) -> None:
    """Raise ``ValidationError`` naming the first input field that cannot be accepted."""
    check_task_id(outcome.task_id)
    summary = outcome.summary
    if not summary:
        raise ValidationError("summary is empty", field="summary")
    if len(summary) > MAX_SUMMARY:
        raise TooLargeError(f"summary exceeds {MAX_SUMMARY} characters", field="summary")
    for field, items in (
        ("keyDecisions", outcome.key_decisions),
        ("patternsUsed", outcome.patterns_used),
        ("lessonsLearned", outcome.lessons_learned),
    ):
        _check_items(field, items, MAX_ITEMS, MAX_ITEM_CHARS)
    _check_items("topics", outcome.topics, MAX_TAGS, 100, single_line=True)
    _check_items("artifacts", outcome.artifacts, MAX_ARTIFACTS, MAX_ARTIFACT_CHARS, True)
    for index, artifact in enumerate(outcome.artifacts):
        parse_key(f"file:{artifact}", field=f"artifacts[{index}]")


def _check_items(
    field: str, items: Sequence[str], most: int, chars: int, single_line: bool = False
) -> None:
    if len(items) > most:
        raise TooLargeError(f"{field}: at most {most} items", field=field)
    for index, item in enumerate(items):
        if not item or len(item) > chars or (single_line and not _PRINTABLE.match(item)):
            kind = "printable characters on one line" if single_line else "characters"
            raise ValidationError(
                f"each of {field} must be 1..{chars} {kind}", field=f"{field}[{index}]"
            )


def not_significant(outcome: TaskOutcome) -> NotSignificantReason | None:
    """Why the outcome is not worth keeping; ``None`` when it is.

    An error or an empty final result rules an outcome out whatever else it says; then:
    SINGLE_TASK with CODE, TRACKER_OPS or MIXED is kept, with RESPOND only with step
    results; EPIC and GENERATIVE are kept; ADVICE never is.
    """
    if outcome.error is not None and outcome.error.strip():
        return NotSignificantReason.ERROR_PRESENT
    if outcome.final_result is None or not outcome.final_result.strip():
        return NotSignificantReason.EMPTY_FINAL_RESULT
    if outcome.category is TaskCategory.ADVICE:
        return NotSignificantReason.ADVICE
    responded = outcome.action is TaskAction.RESPOND
    if outcome.category is TaskCategory.SINGLE_TASK and responded and not outcome.has_step_results:
        return NotSignificantReason.RESPOND_WITHOUT_STEP_RESULTS
    return None


def outcome_document(outcome: TaskOutcome) -> str:
    """The Markdown kept for an outcome; the same outcome always gives the same text."""
    artifacts = sorted(set(outcome.artifacts))
    sections = [
        ("Summary", outcome.summary),
        ("Key Decisions", _bullets(outcome.key_decisions)),
        ("Patterns", _bullets(outcome.patterns_used)),
        ("Artifacts", _bullets([f"`{artifact}`" for artifact in artifacts])),
        ("Lessons", _bullets(outcome.lessons_learned)),
    ]
    head = [
        f"# Task outcome: {outcome.task_id}",
        f"Category: {outcome.category.value} · Action: {outcome.action.value}",
    ]
    body = [f"## {title}\n\n{text}" for title, text in sections]
    return "\n\n".join([*head, *body]) + "\n"


def _bullets(items: Sequence[str]) -> str:
    if not items:
        return "None recorded."
    # Continuation lines are indented so a multi-line item stays one list item.
    return "\n".join("- " + "\n  ".join(item.splitlines()) for item in items)


def outcome_request(
    outcome: TaskOutcome, scope: Scope, policy: SecretPolicy
) -> tuple[IngestRequest, IngestionIdentity]:
    """The ingestion request and queue identity of a checked, significant outcome.

    Names (taskId, topics, artifacts) holding a credential are refused whatever the policy;
    text fields are checked one by one under ``policy``, so an error names the field.
    """
    check_identifiers(
        [
            ("taskId", outcome.task_id),
            *((f"topics[{i}]", t) for i, t in enumerate(outcome.topics)),
            *((f"artifacts[{i}]", a) for i, a in enumerate(outcome.artifacts)),
        ]
    )
    cleaned = dataclasses.replace(
        outcome,
        summary=clean_content(outcome.summary, policy, "summary"),
        key_decisions=_cleaned("keyDecisions", outcome.key_decisions, policy),
        patterns_used=_cleaned("patternsUsed", outcome.patterns_used, policy),
        lessons_learned=_cleaned("lessonsLearned", outcome.lessons_learned, policy),
    )
    tags = tuple(dict.fromkeys(outcome.topics))
    files = sorted({parse_key(f"file:{artifact}").key for artifact in outcome.artifacts})
    relationships = tuple(f"{outcome.task_key}|{ARTIFACT_EDGE}|{key}" for key in files)
    metadata = {
        "taskId": outcome.task_id,
        "category": outcome.category.value,
        "action": outcome.action.value,
        "hasStepResults": outcome.has_step_results,
    }
    content = outcome_document(cleaned)
    request = IngestRequest(
        source_urn=outcome.source_urn,
        kind=TASK_OUTCOME_KIND,
        content=content,
        scope=scope,
        main_node_key=outcome.task_key,
        knowledge_type=KnowledgeType.EPISODIC,
        tags=tags,
        metadata=metadata,
        source_kind=TASK_OUTCOME_KIND,
        relationships=relationships,
        priority=TASK_OUTCOME_PRIORITY,
    )
    material = json.dumps([content, tags, relationships, metadata], sort_keys=True)
    version = hashlib.sha256(material.encode()).hexdigest()[:32]
    return request, IngestionIdentity(TASK_OUTCOME_KIND, outcome.task_id, version)


def _cleaned(field: str, items: Sequence[str], policy: SecretPolicy) -> tuple[str, ...]:
    return tuple(clean_content(item, policy, f"{field}[{i}]") for i, item in enumerate(items))


@dataclass(frozen=True, slots=True)
class OutcomeQueued:
    """A significant outcome, queued (or already queued or indexed in that version)."""

    task_id: str
    source_urn: str
    ingestion: EnqueueResult


@dataclass(frozen=True, slots=True)
class OutcomeNotSignificant:
    """An outcome the filter rules out; nothing was stored."""

    task_id: str
    reason: NotSignificantReason

    @property
    def message(self) -> str:
        """The reason in words."""
        return REASON_MESSAGES[self.reason]


async def record_task_outcome(
    outcome: TaskOutcome,
    store_scope: Callable[[], Awaitable[Scope]],
    *,
    policy: SecretPolicy,
    queue: JobQueue,
    connections: ConnectionRegistry,
) -> OutcomeQueued | OutcomeNotSignificant:
    """Check the outcome, then queue its document in the background lane if it is
    significant, or say why not.

    ``store_scope`` settles the scope written to; it runs only for a significant outcome,
    because settling records a project's group and an insignificant one stores nothing.
    """
    check_outcome(outcome)
    reason = not_significant(outcome)
    if reason is not None:
        logger.info("memory.task_outcome.not_significant", extra={"reason": reason.value})
        return OutcomeNotSignificant(outcome.task_id, reason)
    scope = await store_scope()
    texts = (outcome.summary, *outcome.key_decisions, *outcome.patterns_used)
    size = sum(map(len, (*texts, *outcome.lessons_learned)))
    request, identity = await off_loop(size, lambda: outcome_request(outcome, scope, policy))
    handle = await request_ingestion(
        request, identity, policy=policy, override=None, queue=queue, connections=connections
    )
    return OutcomeQueued(outcome.task_id, outcome.source_urn, handle)
