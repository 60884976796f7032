"""The task-outcome extraction's prompt, answer schema and preparer: what the model is asked
at which priority, which answers are accepted or fed back, and the request a job runs (a
structured outcome's, with the model's provenance)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory.outcome_extraction import (
    RawTaskOutcome,
    extraction_payload,
    task_outcome_preparer,
)
from kenning.domain.memory.outcome_prompt import (
    OUTCOME_PROMPT_VERSION,
    SYSTEM,
    ExtractedOutcome,
    outcome_prompt,
)
from kenning.domain.memory.task_outcomes import (
    TaskAction,
    TaskCategory,
    TaskOutcome,
    outcome_request,
)
from kenning.domain.models.ports import ModelCallError, ModelOutputError, ModelPriority, Role
from kenning.domain.models.structured import output_schema
from kenning.domain.queue.backoff import is_operational
from tests.fakes.model_client import Answer, FakeModelClient

NOTES = "Moved the flaky invoice retries into the durable queue."
RAW = RawTaskOutcome("TASK-17", TaskCategory.EPIC, TaskAction.MIXED, NOTES, True)
SCOPE = Scope("acme", "billing")
FIELDS = ["summary", "keyDecisions", "patternsUsed", "artifacts", "lessonsLearned", "topics"]


def answer(**changes: Any) -> str:
    given: dict[str, Any] = {
        "summary": "Moved invoice retries into the durable queue.",
        "keyDecisions": ["Retry in the queue, not in the client"],
        "patternsUsed": ["outbox"],
        "artifacts": ["src/billing/retry.py", "docs/billing.md"],
        "lessonsLearned": ["Idempotency keys per invoice"],
        "topics": ["billing", "queue"],
        **changes,
    }
    return json.dumps(given)


async def prepare(
    replies: list[Answer], *, retries: int = 3, policy: SecretPolicy = SecretPolicy.REJECT
) -> tuple[Any, FakeModelClient]:
    model = FakeModelClient(replies)
    preparer = task_outcome_preparer(model, model="qwen2.5:7b", max_retries=retries, policy=policy)
    request = await preparer(extraction_payload(RAW, NOTES), SCOPE, 6)
    return request, model


def test_the_schema_asks_for_the_six_fields_of_the_design_all_required() -> None:
    schema = output_schema(ExtractedOutcome)
    assert list(schema["properties"]) == FIELDS and sorted(schema["required"]) == sorted(FIELDS)
    assert schema["properties"]["summary"]["type"] == "string"
    for name in FIELDS[1:]:
        assert schema["properties"][name] == {
            **schema["properties"][name],
            "type": "array",
            "items": {"type": "string"},
        }
    # Limits are checked by the validator, never sent: large ones would bloat a grammar.
    assert "maxLength" not in json.dumps(schema) and "maxItems" not in json.dumps(schema)
    for name in FIELDS:
        assert f"- {name}:" in SYSTEM


def test_the_prompt_gives_the_task_and_its_notes_between_markers() -> None:
    text = outcome_prompt(RAW.head, NOTES)
    assert text.startswith("Task TASK-17 (category EPIC, action MIXED).")
    assert text.endswith(f"Notes:\n<<<\n{NOTES}\n>>>")
    assert OUTCOME_PROMPT_VERSION == "task-outcome-v1"


def test_blank_items_are_dropped_and_items_stripped() -> None:
    value = ExtractedOutcome.model_validate_json(
        answer(keyDecisions=["  a  ", " ", ""], artifacts=["`src/a.py`", "\n"])
    )
    assert value.key_decisions == ["a"] and value.artifacts == ["src/a.py"]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"summary": " "}, "summary"),
        ({"summary": "s" * 20_001}, "summary"),
        ({"topics": ["two\nlines"]}, "topics[0]"),
        ({"topics": [f"t{i}" for i in range(65)]}, "topics"),
        ({"artifacts": ["ok.py", "f" * 501]}, "artifacts[1]"),
        ({"lessonsLearned": ["l"] * 101}, "lessonsLearned"),
    ],
)
def test_an_answer_over_a_limit_is_refused_in_the_apis_words(
    changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(Exception) as raised:
        ExtractedOutcome.model_validate_json(answer(**changes))
    assert f"{field}: " in str(raised.value)


async def test_the_preparer_asks_the_extraction_model_in_the_background() -> None:
    _, model = await prepare([answer()])
    [request] = model.requests
    assert request.model == "qwen2.5:7b"
    assert request.priority is ModelPriority.BACKGROUND and int(request.priority) == 3
    assert request.schema == output_schema(ExtractedOutcome)
    assert [m.role for m in request.messages] == [Role.SYSTEM, Role.USER]
    assert request.messages[0].content == SYSTEM
    assert request.messages[1].content == outcome_prompt(RAW.head, NOTES)


async def test_the_request_is_the_structured_outcomes_with_the_models_provenance() -> None:
    request, _ = await prepare([answer()])
    given = TaskOutcome(
        "TASK-17", TaskCategory.EPIC, TaskAction.MIXED,
        summary="Moved invoice retries into the durable queue.", has_step_results=True,
        key_decisions=("Retry in the queue, not in the client",), patterns_used=("outbox",),
        artifacts=("src/billing/retry.py", "docs/billing.md"),
        lessons_learned=("Idempotency keys per invoice",), topics=("billing", "queue"),
    )  # fmt: skip
    structured, _ = outcome_request(given, SCOPE, SecretPolicy.REJECT)
    assert request.content == structured.content
    assert request.relationships == structured.relationships
    assert (request.tags, request.main_node_key) == (structured.tags, structured.main_node_key)
    assert dataclasses.replace(request, metadata={}, priority=0) == dataclasses.replace(
        structured, metadata={}, priority=0
    )
    assert request.metadata == {
        **structured.metadata,
        "extractedBy": "llm:qwen2.5:7b",
        "promptVersion": OUTCOME_PROMPT_VERSION,
    }
    # The job's own priority: a job moved in its lane keeps where it was moved.
    assert request.priority == 6 and request.scope == SCOPE


async def test_an_invalid_answer_is_retried_with_the_problem_fed_back() -> None:
    request, model = await prepare([answer(artifacts=["f" * 501]), answer()])
    assert model.calls == 2 and request.content.startswith("# Task outcome: TASK-17")
    feedback = model.requests[1].messages[-1]
    assert feedback.role is Role.USER and "artifacts[0]" in feedback.content


async def test_an_answer_that_stays_invalid_fails_with_every_attempt() -> None:
    with pytest.raises(ModelOutputError) as raised:
        await prepare(["not json"], retries=2)
    assert len(raised.value.attempts) == 3
    # A fact about the answer: the queue fails the job instead of backing off.
    assert not is_operational(raised.value)


async def test_a_busy_model_is_operational_and_the_job_backs_off() -> None:
    busy = ModelCallError("ollama busy (503)", transient=True)
    with pytest.raises(ModelCallError) as raised:
        await prepare([busy])
    assert is_operational(raised.value)


async def test_a_credential_the_model_writes_is_refused_naming_the_field() -> None:
    leaky = answer(lessonsLearned=["ok", "the key is AKIAIOSFODNN7EXAMPLF"])
    with pytest.raises(SensitiveContentError) as raised:
        await prepare([leaky])
    assert raised.value.field == "lessonsLearned[1]"
    redacted, _ = await prepare([leaky], policy=SecretPolicy.REDACT)
    assert "AKIAIOSFODNN7EXAMPLF" not in redacted.content


async def test_an_unreadable_payload_fails_without_a_model_call() -> None:
    model = FakeModelClient([answer()])
    preparer = task_outcome_preparer(model, model="m", max_retries=0, policy=SecretPolicy.REJECT)
    for payload in (
        {},
        {**extraction_payload(RAW, NOTES), "task": "ingest"},
        {**extraction_payload(RAW, NOTES), "category": "NOPE"},
        {k: v for k, v in extraction_payload(RAW, NOTES).items() if k != "rawContext"},
    ):
        with pytest.raises(ValidationError):
            await preparer(payload, SCOPE, 4)
    assert model.calls == 0
