"""Task outcomes: the significance table row by row, the overriding error and empty final
result, the Markdown document, the queued request, and the checks of every input field."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.request import KnowledgeType
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory.task_outcomes import (
    NotSignificantReason,
    TaskAction,
    TaskCategory,
    TaskOutcome,
    check_outcome,
    not_significant,
    outcome_document,
    outcome_request,
)
from kenning.domain.queue.jobs import Lane, lane_of

SINGLE, EPIC, GENERATIVE, ADVICE = (
    TaskCategory.SINGLE_TASK,
    TaskCategory.EPIC,
    TaskCategory.GENERATIVE,
    TaskCategory.ADVICE,
)
CODE, TRACKER, MIXED, RESPOND = (
    TaskAction.CODE,
    TaskAction.TRACKER_OPS,
    TaskAction.MIXED,
    TaskAction.RESPOND,
)
AWS_KEY = "AKIAIOSFODNN7EXAMPLF"


def outcome(**changes: Any) -> TaskOutcome:
    given: dict[str, Any] = {
        "task_id": "TASK-17",
        "category": SINGLE,
        "action": CODE,
        "summary": "Moved billing retries into the queue.",
        "final_result": "Merged in PR 88.",
        **changes,
    }
    return TaskOutcome(**given)


# The table, one row per (category, action, step results): kept or why not.
TABLE = [
    (SINGLE, CODE, False, None),
    (SINGLE, CODE, True, None),
    (SINGLE, TRACKER, False, None),
    (SINGLE, TRACKER, True, None),
    (SINGLE, MIXED, False, None),
    (SINGLE, MIXED, True, None),
    (SINGLE, RESPOND, False, NotSignificantReason.RESPOND_WITHOUT_STEP_RESULTS),
    (SINGLE, RESPOND, True, None),
    *((category, action, steps, None) for category in (EPIC, GENERATIVE)
      for action in TaskAction for steps in (False, True)),
    *((ADVICE, action, steps, NotSignificantReason.ADVICE) for action in TaskAction
      for steps in (False, True)),
]  # fmt: skip
KEPT = [(category, action, steps) for category, action, steps, why in TABLE if why is None]


def test_the_table_covers_every_category_action_and_step_results() -> None:
    rows = {(category, action, steps) for category, action, steps, _ in TABLE}
    assert len(rows) == len(TABLE) == len(TaskCategory) * len(TaskAction) * 2


@pytest.mark.parametrize(("category", "action", "steps", "why"), TABLE)
def test_significance_follows_the_table(
    category: TaskCategory, action: TaskAction, steps: bool, why: NotSignificantReason | None
) -> None:
    found = not_significant(outcome(category=category, action=action, has_step_results=steps))
    assert found is why


@pytest.mark.parametrize(("category", "action", "steps"), KEPT)
def test_any_error_rules_out_an_otherwise_significant_outcome(
    category: TaskCategory, action: TaskAction, steps: bool
) -> None:
    failed = outcome(category=category, action=action, has_step_results=steps, error="timeout")
    assert not_significant(failed) is NotSignificantReason.ERROR_PRESENT


@pytest.mark.parametrize(("category", "action", "steps"), KEPT)
@pytest.mark.parametrize("final_result", [None, "", "  \n"])
def test_an_empty_final_result_rules_out_an_otherwise_significant_outcome(
    category: TaskCategory, action: TaskAction, steps: bool, final_result: str | None
) -> None:
    empty = outcome(
        category=category, action=action, has_step_results=steps, final_result=final_result
    )
    assert not_significant(empty) is NotSignificantReason.EMPTY_FINAL_RESULT


def test_a_blank_error_is_no_error_and_an_error_is_named_before_an_empty_result() -> None:
    assert not_significant(outcome(error="")) is None
    assert not_significant(outcome(error="  ")) is None
    both = outcome(error="boom", final_result="")
    assert not_significant(both) is NotSignificantReason.ERROR_PRESENT
    advice_failed = outcome(category=ADVICE, error="boom")
    assert not_significant(advice_failed) is NotSignificantReason.ERROR_PRESENT


FULL = outcome(
    key_decisions=("Retry in the queue, not in the client", "Keep idempotency keys\nper invoice"),
    patterns_used=("outbox",),
    artifacts=("src/billing/retry.py", "docs/billing.md", "src/billing/retry.py"),
    lessons_learned=(),
    topics=("billing", "queue"),
)


def test_the_document_has_the_five_sections_in_order() -> None:
    assert outcome_document(FULL) == (
        "# Task outcome: TASK-17\n\n"
        "Category: SINGLE_TASK · Action: CODE\n\n"
        "## Summary\n\nMoved billing retries into the queue.\n\n"
        "## Key Decisions\n\n- Retry in the queue, not in the client\n"
        "- Keep idempotency keys\n  per invoice\n\n"
        "## Patterns\n\n- outbox\n\n"
        "## Artifacts\n\n- `docs/billing.md`\n- `src/billing/retry.py`\n\n"
        "## Lessons\n\nNone recorded.\n"
    )


def test_the_document_does_not_depend_on_artifact_order_or_surrounding_space() -> None:
    shuffled = dataclasses.replace(
        FULL, artifacts=(" docs/billing.md", "src/billing/retry.py "), summary=f"\n{FULL.summary} "
    )
    assert outcome_document(shuffled) == outcome_document(FULL)


def test_the_request_is_a_task_outcome_in_the_background_lane_with_file_edges() -> None:
    scope = Scope("acme", "billing")
    request, identity = outcome_request(FULL, scope, SecretPolicy.REJECT)
    assert request.source_urn == "task-outcome:TASK-17"
    assert request.kind == "task_outcome" and request.source_kind == "task_outcome"
    assert request.scope == scope
    assert request.priority == 4 and lane_of(request.priority) is Lane.BULK
    assert request.tags == ("billing", "queue")
    assert request.main_node_key == "task:task-17"
    assert request.knowledge_type is KnowledgeType.EPISODIC
    assert request.content == outcome_document(FULL)
    assert request.relationships == (
        "task:task-17|produced|file:docs/billing.md",
        "task:task-17|produced|file:src/billing/retry.py",
    )
    assert request.metadata == {
        "taskId": "TASK-17",
        "category": "SINGLE_TASK",
        "action": "CODE",
        "hasStepResults": False,
    }
    assert (identity.source_kind, identity.source_id) == ("task_outcome", "TASK-17")


def test_the_version_changes_with_the_content_and_only_with_it() -> None:
    def version(item: TaskOutcome) -> str:
        return outcome_request(item, Scope("acme"), SecretPolicy.REJECT)[1].content_version

    reordered = dataclasses.replace(FULL, artifacts=tuple(reversed(FULL.artifacts)))
    assert version(reordered) == version(FULL)
    assert version(dataclasses.replace(FULL, summary="Other.")) != version(FULL)
    assert version(dataclasses.replace(FULL, topics=("billing",))) != version(FULL)
    assert version(dataclasses.replace(FULL, artifacts=("a.py",))) != version(FULL)


@pytest.mark.parametrize(
    ("changes", "field", "error"),
    [
        ({"task_id": " "}, "taskId", ValidationError),
        ({"task_id": "x" * 201}, "taskId", ValidationError),
        ({"task_id": "a\nb"}, "taskId", ValidationError),
        ({"summary": " \n"}, "summary", ValidationError),
        ({"summary": "s" * 20_001}, "summary", TooLargeError),
        ({"key_decisions": ("ok", " ")}, "keyDecisions[1]", ValidationError),
        ({"patterns_used": ("p" * 2_001,)}, "patternsUsed[0]", ValidationError),
        ({"lessons_learned": ("l",) * 101}, "lessonsLearned", TooLargeError),
        ({"topics": ("fine", "two\nlines")}, "topics[1]", ValidationError),
        ({"topics": ("t",) * 65}, "topics", TooLargeError),
        ({"artifacts": ("a.py", "")}, "artifacts[1]", ValidationError),
        ({"artifacts": ("f" * 501,)}, "artifacts[0]", ValidationError),
        ({"artifacts": ("a.py",) * 201}, "artifacts", TooLargeError),
    ],
)
def test_an_invalid_field_is_named(
    changes: dict[str, Any], field: str, error: type[ValidationError]
) -> None:
    with pytest.raises(error) as raised:
        check_outcome(outcome(**changes))
    assert raised.value.field == field
    assert type(raised.value) is error


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"summary": f"Rotated {AWS_KEY} today."}, "summary"),
        ({"key_decisions": ("fine", f"use {AWS_KEY}")}, "keyDecisions[1]"),
        ({"patterns_used": (AWS_KEY,)}, "patternsUsed[0]"),
        ({"lessons_learned": (f"never paste {AWS_KEY}",)}, "lessonsLearned[0]"),
    ],
)
def test_a_credential_in_text_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(SensitiveContentError) as raised:
        outcome_request(outcome(**changes), Scope("acme"), SecretPolicy.REJECT)
    assert raised.value.field == field
    assert AWS_KEY not in raised.value.message


def test_redact_keeps_the_text_without_the_credential() -> None:
    leaky = outcome(summary=f"Rotated {AWS_KEY} today.", key_decisions=(f"use {AWS_KEY}",))
    request, _ = outcome_request(leaky, Scope("acme"), SecretPolicy.REDACT)
    assert AWS_KEY not in request.content
    assert request.content.count("[REDACTED:") == 2


def test_an_item_at_its_limit_is_accepted_and_may_grow_when_redacted() -> None:
    longest = "x" * (2_000 - len(AWS_KEY) - 1) + " " + AWS_KEY
    full = outcome(summary="s" * 20_000, lessons_learned=(longest,), artifacts=("f" * 500,))
    check_outcome(full)
    request, _ = outcome_request(full, Scope("acme"), SecretPolicy.REDACT)
    assert "[REDACTED:" in request.content and AWS_KEY not in request.content


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"task_id": AWS_KEY}, "taskId"),
        ({"topics": ("ok", AWS_KEY)}, "topics[1]"),
        ({"artifacts": (f"keys/{AWS_KEY}.txt",)}, "artifacts[0]"),
    ],
)
def test_a_credential_in_a_name_is_refused_even_when_redacting(
    changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(SensitiveContentError) as raised:
        outcome_request(outcome(**changes), Scope("acme"), SecretPolicy.REDACT)
    assert raised.value.field == field
