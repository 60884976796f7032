"""The extraction prompt and its validated output: what the model is asked, at which
priority, and which answers are refused (and fed back) before anything is merged."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from kenning.domain.extraction.graph_extraction import (
    EXTRACT_PROMPT_VERSION,
    EXTRACT_SYSTEM,
    ChunkExtraction,
    extract_graph,
)
from kenning.domain.models.ports import ModelOutputError, ModelPriority, Role
from tests.fakes.model_client import FakeModelClient

RELATION: dict[str, Any] = {
    "source": "billing",
    "type": "dependsOn",
    "target": "postgres",
    "confidence": 0.9,
}
VALID: dict[str, Any] = {
    "entities": [
        {"type": "service", "name": "billing", "description": "Bills customers."},
        {"type": "database", "name": "Postgres", "description": ""},
    ],
    "relations": [RELATION],
}


def test_the_prompt_is_versioned_and_shows_an_example() -> None:
    assert EXTRACT_PROMPT_VERSION == "extract-v1"
    example = EXTRACT_SYSTEM.split("Example answer:", 1)[1]
    # The few-shot answer itself is a valid answer of the example passage.
    assert ChunkExtraction.model_validate_json(example).relations[0].type == "depends_on"


def test_relation_types_are_normalized_and_names_match_ignoring_case() -> None:
    found = ChunkExtraction.model_validate(VALID)
    assert found.relations[0].type == "depends_on"
    assert [e.type for e in found.entities] == ["service", "database"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"relations": [{**RELATION, "target": "redis"}]}, "not the name"),
        ({"entities": [{"type": "two words", "name": "x"}], "relations": []}, "identifier"),
        ({"relations": [{**RELATION, "confidence": 1.5}]}, "less than or equal"),
        ({"relations": [{**RELATION, "type": "!!"}]}, "edge type"),
        ({"entities": [{"type": "service", "name": "  "}], "relations": []}, "blank"),
    ],
)
def test_invalid_answers_are_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=message):
        ChunkExtraction.model_validate({**VALID, **change})


async def test_extract_graph_asks_at_p3_with_the_schema_and_temperature_0() -> None:
    client = FakeModelClient([json.dumps(VALID)])
    result = await extract_graph(client, "billing depends on Postgres", model="m1")
    [request] = client.requests
    assert request.priority is ModelPriority.BACKGROUND and int(request.priority) == 3
    assert request.model == "m1"
    assert request.schema == ChunkExtraction.model_json_schema()
    assert request.options["temperature"] == 0
    assert request.messages[0].role is Role.SYSTEM
    assert "billing depends on Postgres" in request.messages[1].content
    assert result.value.entities[0].name == "billing"


async def test_an_invalid_answer_is_fed_back_then_a_valid_one_is_kept() -> None:
    bad = {**VALID, "relations": [{**RELATION, "source": "ghost"}]}
    client = FakeModelClient([json.dumps(bad), json.dumps(VALID)])
    result = await extract_graph(client, "text", model="m1", max_retries=3)
    assert client.calls == 2 and len(result.attempts) == 2
    feedback = client.requests[1].messages[-1].content
    assert "ghost" in feedback and "not the name of a listed entity" in feedback


async def test_an_answer_that_stays_invalid_is_a_typed_error_after_the_retries() -> None:
    client = FakeModelClient(['{"entities": "nope"}'])
    with pytest.raises(ModelOutputError) as raised:
        await extract_graph(client, "text", model="m1", max_retries=2)
    assert client.calls == 3 and len(raised.value.attempts) == 3
