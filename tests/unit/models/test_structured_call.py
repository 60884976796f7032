"""``structured_call`` with the fake model client: the schema as ``format``, the validation
error fed back, the retry budget, and the request's context reaching validators."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from kenning.domain.models.ports import (
    ModelCallError,
    ModelOutputError,
    ModelPriority,
    Role,
)
from kenning.domain.models.structured import StructuredPrompt, output_schema, structured_call
from tests.fakes.model_client import FakeModelClient


class Edge(pydantic.BaseModel):
    source: str
    target: str
    evidence: str

    @pydantic.field_validator("evidence")
    @classmethod
    def cites_a_known_piece(cls, value: str, info: pydantic.ValidationInfo) -> str:
        pieces: set[str] = (info.context or {}).get("pieces", set())
        if value not in pieces:
            raise ValueError(f"evidence {value!r} is not one of the pieces {sorted(pieces)}")
        return value


def prompt(max_retries: int = 3, **context: Any) -> StructuredPrompt[Edge]:
    return StructuredPrompt(
        model="qwen2.5:7b", system="Extract one edge.", prompt="Ada wrote notes.",
        output=Edge, priority=ModelPriority.BACKGROUND, max_retries=max_retries,
        context=context,
    )  # fmt: skip


GOOD = '{"source": "person:ada", "target": "doc:notes", "evidence": "p1"}'


async def test_the_schema_goes_as_format_with_system_and_user_messages() -> None:
    client = FakeModelClient([GOOD])
    result = await structured_call(client, prompt(pieces={"p1"}))
    [request] = client.requests
    assert request.schema == output_schema(Edge) == Edge.model_json_schema()
    assert request.model == "qwen2.5:7b" and request.priority is ModelPriority.BACKGROUND
    assert [(m.role, m.content) for m in request.messages] == [
        (Role.SYSTEM, "Extract one edge."),
        (Role.USER, "Ada wrote notes."),
    ]
    assert result.value.evidence == "p1" and result.raw == GOOD
    assert [(a.number, a.error) for a in result.attempts] == [(1, None)]


async def test_each_retry_carries_the_answer_and_what_was_wrong_with_it() -> None:
    client = FakeModelClient(['{"source": "person:ada"}', "not json at all", GOOD])
    result = await structured_call(client, prompt(pieces={"p1"}))
    assert client.calls == 3 and len(result.attempts) == 3
    second, third = client.requests[1].messages, client.requests[2].messages
    assert [m.role for m in second] == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER]
    assert second[2].content == '{"source": "person:ada"}'
    assert "- target: Field required" in second[3].content
    assert "- evidence: Field required" in second[3].content
    # The whole conversation so far goes again: both refused answers, both corrections.
    assert [m.content for m in third[:4]] == [m.content for m in second]
    assert third[4].content == "not json at all" and "Invalid JSON" in third[5].content
    assert [a.error is None for a in result.attempts] == [False, False, True]


async def test_the_context_reaches_validators_and_their_error_is_fed_back() -> None:
    wrong = '{"source": "person:ada", "target": "doc:notes", "evidence": "p9"}'
    client = FakeModelClient([wrong, GOOD])
    result = await structured_call(client, prompt(pieces={"p1", "p2"}))
    assert result.value.evidence == "p1"
    feedback = client.requests[1].messages[-1].content
    assert "evidence: Value error, evidence 'p9' is not one of the pieces ['p1', 'p2']" in feedback


async def test_without_retries_one_invalid_answer_is_the_error() -> None:
    client = FakeModelClient(["{}", GOOD])
    with pytest.raises(ModelOutputError) as caught:
        await structured_call(client, prompt(max_retries=0, pieces={"p1"}))
    assert client.calls == 1
    assert len(caught.value.attempts) == 1 and caught.value.model == "qwen2.5:7b"
    assert caught.value.code.value == "MODEL_OUTPUT_INVALID"


async def test_an_answer_that_stays_invalid_lists_every_attempt() -> None:
    client = FakeModelClient(['{"source": 1}'])
    with pytest.raises(ModelOutputError) as caught:
        await structured_call(client, prompt(max_retries=2, pieces={"p1"}))
    assert client.calls == 3
    assert [a.number for a in caught.value.attempts] == [1, 2, 3]
    assert all(a.error and "source: Input should be a valid string" in a.error
               for a in caught.value.attempts)  # fmt: skip
    assert "3 attempts" in str(caught.value)


async def test_a_backend_failure_is_not_retried_here() -> None:
    busy = ModelCallError("ollama busy (503)", transient=True, retry_after=2.0)
    client = FakeModelClient([busy, GOOD])
    with pytest.raises(ModelCallError) as caught:
        await structured_call(client, prompt(pieces={"p1"}))
    assert caught.value is busy and client.calls == 1


async def test_a_negative_retry_budget_is_refused_before_any_call() -> None:
    client = FakeModelClient([GOOD])
    with pytest.raises(ValueError, match="max_retries"):
        await structured_call(client, prompt(max_retries=-1))
    assert client.calls == 0
