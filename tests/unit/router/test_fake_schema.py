"""The fake Ollama's answer to a ``format``-constrained generation validates against the
schema, as a real Ollama's does."""

from __future__ import annotations

import json

import pydantic
import pytest

from kenning.domain.extraction.graph_extraction import ChunkExtraction
from kenning.domain.extraction.structure_output import StructuredKnowledge
from kenning.router.demo.fake_schema import constrained_answer, smallest


class _Inner(pydantic.BaseModel):
    name: str = pydantic.Field(min_length=3)
    score: float = pydantic.Field(ge=0.5)


class _Outer(pydantic.BaseModel):
    kind: str = pydantic.Field(pattern="^[a-z]+$", default="a")
    inner: _Inner
    items: list[_Inner] = pydantic.Field(min_length=2)
    maybe: _Inner | None = None


@pytest.mark.parametrize("model", [_Outer, StructuredKnowledge, ChunkExtraction])
def test_the_smallest_instance_validates(model: type[pydantic.BaseModel]) -> None:
    answer = constrained_answer(model.model_json_schema())
    assert answer is not None
    model.model_validate_json(answer)


def test_required_nested_and_minimum_items_are_filled() -> None:
    value = smallest(_Outer.model_json_schema(), _Outer.model_json_schema())
    assert value["inner"] == {"name": "xxx", "score": 0.5}
    assert len(value["items"]) == 2
    assert "maybe" not in value


def test_json_mode_answers_an_object_and_no_format_is_unconstrained() -> None:
    assert json.loads(constrained_answer("json") or "") == {}
    assert constrained_answer(None) is None
