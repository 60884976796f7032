"""Task outcomes from an agent's raw context: the model writes the structured outcome.

``recordTaskOutcome`` takes either the structured outcome (``TaskOutcome``) or
``rawContext``, the agent's free-text notes or transcript of the task (``RawTaskOutcome``);
``outcome_form`` tells which and refuses both or neither. For a raw outcome the significance
filter runs first (an insignificant task makes no model call), then the text passes the
secret policy and one job is queued in the background lane with payload task
``task_outcome``. A worker's ``task_outcome_preparer`` asks the extraction model, at P3, for
the design's schema (``ExtractedOutcome``, see ``outcome_prompt``) and returns the request a
structured outcome gets (``outcome_request``): the same document at ``task-outcome:<taskId>``
and the same file edges. An answer that stays invalid fails the job; a busy model makes it
back off. The caller never waits for either.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.ingestion.rules import check_identifiers, clean_content
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_connections import ConnectionRegistry
from kenning.domain.memory.outcome_prompt import (
    OUTCOME_PROMPT_VERSION,
    SYSTEM,
    ExtractedOutcome,
    outcome_prompt,
)
from kenning.domain.memory.task_outcomes import (
    TASK_OUTCOME_KIND,
    OutcomeNotSignificant,
    OutcomeQueued,
    TaskAction,
    TaskCategory,
    TaskOutcome,
    check_outcome,
    check_task_id,
    not_significant,
    outcome_request,
    record_task_outcome,
)
from kenning.domain.models.health import ModelReadiness, accepted_by
from kenning.domain.models.ports import ModelClient, ModelPriority
from kenning.domain.models.structured import StructuredPrompt, structured_call
from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import TASK_OUTCOME_PRIORITY
from kenning.domain.queue.jobs import IngestionIdentity
from kenning.domain.queue.payload import task_payload
from kenning.domain.queue.ports import JobQueue, NewJob
from kenning.domain.queue.tasks import Preparer

logger = logging.getLogger("kenning.memory")

# The queue task (payload key "task") a worker hands to ``task_outcome_preparer``.
TASK_OUTCOME_TASK: Final = "task_outcome"
# About 8k tokens: more would not fit the context window Ollama gives a model by default,
# and it would silently drop the beginning of the notes.
MAX_RAW_CONTEXT: Final = 32_000


@dataclass(frozen=True, slots=True)
class RawTaskOutcome:
    """A task's significance inputs and the agent's free-text account of it; the model
    writes the summary, decisions, patterns, artifacts, lessons and topics later."""

    task_id: str
    category: TaskCategory
    action: TaskAction
    raw_context: str
    has_step_results: bool = False
    error: str | None = None
    final_result: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "task_id", self.task_id.strip())
        object.__setattr__(self, "raw_context", self.raw_context.strip())

    @property
    def head(self) -> TaskOutcome:
        """The outcome without content: what the filter reads and the extraction fills."""
        return TaskOutcome(
            task_id=self.task_id,
            category=self.category,
            action=self.action,
            summary="",
            has_step_results=self.has_step_results,
            error=self.error,
            final_result=self.final_result,
        )


def outcome_form(
    *,
    task_id: str,
    category: TaskCategory,
    action: TaskAction,
    has_step_results: bool = False,
    error: str | None = None,
    final_result: str | None = None,
    raw_context: str | None = None,
    summary: str | None = None,
    key_decisions: Sequence[str] = (),
    patterns_used: Sequence[str] = (),
    artifacts: Sequence[str] = (),
    lessons_learned: Sequence[str] = (),
    topics: Sequence[str] = (),
) -> TaskOutcome | RawTaskOutcome:
    """The outcome in the form it was given: structured (``summary`` and its lists) or
    ``raw_context``; both or neither raise ``ValidationError`` naming the field."""
    content = {
        "summary": summary is not None,
        "keyDecisions": bool(key_decisions),
        "patternsUsed": bool(patterns_used),
        "artifacts": bool(artifacts),
        "lessonsLearned": bool(lessons_learned),
        "topics": bool(topics),
    }
    given = [name for name, present in content.items() if present]
    signals: dict[str, Any] = {
        "task_id": task_id,
        "category": category,
        "action": action,
        "has_step_results": has_step_results,
        "error": error,
        "final_result": final_result,
    }
    if raw_context is not None:
        if given:
            raise ValidationError(
                "rawContext replaces the structured outcome: give it without " + ", ".join(given),
                field="rawContext",
            )
        return RawTaskOutcome(raw_context=raw_context, **signals)
    if summary is None:
        raise ValidationError(
            "give the outcome's summary (and its other fields), or rawContext for the "
            "server to structure",
            field="summary",
        )
    return TaskOutcome(
        summary=summary,
        key_decisions=tuple(key_decisions),
        patterns_used=tuple(patterns_used),
        artifacts=tuple(artifacts),
        lessons_learned=tuple(lessons_learned),
        topics=tuple(topics),
        **signals,
    )


def check_raw_outcome(raw: RawTaskOutcome) -> None:
    """Raise ``ValidationError`` naming the first input field that cannot be accepted."""
    check_task_id(raw.task_id)
    if not raw.raw_context:
        raise ValidationError("rawContext is empty", field="rawContext")
    if len(raw.raw_context) > MAX_RAW_CONTEXT:
        raise TooLargeError(f"rawContext exceeds {MAX_RAW_CONTEXT} characters", field="rawContext")


def extraction_payload(raw: RawTaskOutcome, cleaned: str) -> dict[str, Any]:
    """The queued job's payload: what the preparer needs, the secret-checked text included.

    ``error`` and ``finalResult`` only decided significance; they are not kept."""
    body = {
        "taskId": raw.task_id,
        "category": raw.category.value,
        "action": raw.action.value,
        "hasStepResults": raw.has_step_results,
        "rawContext": cleaned,
    }
    return task_payload(TASK_OUTCOME_TASK, body)


def read_payload(payload: Mapping[str, Any]) -> tuple[TaskOutcome, str]:
    """The head of the outcome and its raw context, from a payload of ``extraction_payload``."""
    try:
        if payload.get("task") != TASK_OUTCOME_TASK:
            raise ValueError(f"task {payload.get('task')!r}")
        raw = RawTaskOutcome(
            task_id=str(payload["taskId"]),
            category=TaskCategory(payload["category"]),
            action=TaskAction(payload["action"]),
            raw_context=str(payload["rawContext"]),
            has_step_results=bool(payload["hasStepResults"]),
        )
    except (KeyError, ValueError) as error:
        raise ValidationError(f"unreadable task outcome payload ({error!r})") from None
    return raw.head, raw.raw_context


def _cleaned(raw: RawTaskOutcome, policy: SecretPolicy) -> str:
    check_identifiers([("taskId", raw.task_id)])
    return clean_content(raw.raw_context, policy, "rawContext")


def _version(payload: Mapping[str, Any]) -> str:
    # The prompt's version is part of it: a new prompt re-extracts an outcome recorded again.
    material = json.dumps([OUTCOME_PROMPT_VERSION, payload], sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


async def record_outcome(
    outcome: TaskOutcome | RawTaskOutcome,
    store_scope: Callable[[], Awaitable[Scope]],
    *,
    policy: SecretPolicy,
    queue: JobQueue,
    connections: ConnectionRegistry,
    models: ModelReadiness,
) -> OutcomeQueued | OutcomeNotSignificant:
    """Record an outcome in either form; a raw one is queued for extraction if it is
    significant (no model call otherwise), after the secret check of its text; refused at
    once when its model cannot answer at all (none set, or the backend lacks it).

    Recording the task again replaces the earlier record, in either form: the job's
    identity is the one structured outcomes have (``task_outcome``, the task id).
    """
    if isinstance(outcome, TaskOutcome):
        return await record_task_outcome(
            outcome, store_scope, policy=policy, queue=queue, connections=connections
        )
    check_raw_outcome(outcome)
    reason = not_significant(outcome.head)
    if reason is not None:
        logger.info("memory.task_outcome.not_significant", extra={"reason": reason.value})
        return OutcomeNotSignificant(outcome.task_id, reason)
    await accepted_by(models, "extract")
    # Checked before the scope is settled: a refused request writes nothing at all.
    cleaned = await off_loop(len(outcome.raw_context), lambda: _cleaned(outcome, policy))
    scope = await store_scope()
    payload = extraction_payload(outcome, cleaned)
    identity = IngestionIdentity(TASK_OUTCOME_KIND, outcome.task_id, _version(payload))
    source_urn = outcome.head.source_urn
    handle = await queue.enqueue(
        NewJob(identity, scope, TASK_OUTCOME_PRIORITY, source_urn, None, payload)
    )
    logger.info(
        "memory.task_outcome.extraction_queued",
        extra={"job_id": handle.job_id, "handle": handle.status.value, "source_urn": source_urn},
    )
    return OutcomeQueued(outcome.task_id, source_urn, handle)


def task_outcome_preparer(
    client: ModelClient, *, model: str, max_retries: int, policy: SecretPolicy
) -> Preparer:
    """The queue's preparer of ``task_outcome`` jobs: the model extracts the outcome from
    the payload's raw context, and the job then indexes it as a structured outcome.

    ``ModelOutputError`` (the answer stayed invalid) and a ``ValidationError`` of the
    outcome fail the job; ``ModelCallError`` with ``transient`` makes it back off.
    """

    async def prepare(payload: Mapping[str, Any], scope: Scope, priority: int) -> IngestRequest:
        head, raw_context = read_payload(payload)
        answer = await structured_call(
            client,
            StructuredPrompt(
                model=model,
                system=SYSTEM,
                prompt=outcome_prompt(head, raw_context),
                output=ExtractedOutcome,
                priority=ModelPriority.BACKGROUND,
                max_retries=max_retries,
            ),
        )
        outcome = answer.value.fill(head)
        check_outcome(outcome)
        size = len(answer.raw)
        request, _ = await off_loop(size, lambda: outcome_request(outcome, scope, policy))
        logger.info(
            "memory.task_outcome.extracted",
            extra={
                "source_urn": request.source_urn,
                "model": answer.model,
                "attempts": len(answer.attempts),
                "duration_ms": answer.duration_ms,
            },
        )
        # Provenance in the metadata; the document and its graph are a structured outcome's.
        metadata = {
            **request.metadata,
            "extractedBy": f"llm:{answer.model}",
            "promptVersion": OUTCOME_PROMPT_VERSION,
        }
        return dataclasses.replace(request, priority=priority, metadata=metadata)

    return prepare
