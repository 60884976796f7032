"""The answer structureKnowledge asks of the model: its schema, the validators whose errors
are fed back, the prompt's own example, and how a valid answer becomes the load request."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.structure_output import StructuredKnowledge
from kenning.domain.extraction.structure_prompt import (
    EXAMPLE_ANSWER,
    EXAMPLE_TEXT,
    STRUCTURE_PROMPT_VERSION,
    SYSTEM,
    structure_prompt,
)
from kenning.domain.ingestion.knowledge_file import KIND, read_file
from kenning.domain.ingestion.request import EdgeRecord, KnowledgeType
from kenning.domain.models.structured import output_schema

ACME = Scope("acme", "web")


def _answer(**changes: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(json.dumps(EXAMPLE_ANSWER))
    answer.update(changes)
    return answer


def _errors(answer: object) -> str:
    with pytest.raises(pydantic.ValidationError) as raised:
        StructuredKnowledge.model_validate_json(json.dumps(answer))
    return str(raised.value)


def test_the_prompt_is_versioned_and_its_example_is_a_valid_answer() -> None:
    assert STRUCTURE_PROMPT_VERSION == "structure-v2"
    assert EXAMPLE_TEXT in SYSTEM and json.dumps(EXAMPLE_ANSWER) in SYSTEM
    example = StructuredKnowledge.model_validate(EXAMPLE_ANSWER)
    assert len(example.pieces) == 3 and len(example.graph.edges) == 3


def test_the_user_message_carries_hints_then_the_text() -> None:
    assert structure_prompt("Bob runs CI.", " about the platform team ") == (
        "Hints from the caller: about the platform team\n\nText to structure:\nBob runs CI."
    )
    assert structure_prompt("Bob runs CI.", None) == "Text to structure:\nBob runs CI."


def test_the_schema_sent_as_format_is_the_design_format_and_requires_a_linked_piece() -> None:
    schema = output_schema(StructuredKnowledge)
    defs = schema["$defs"]
    assert defs["KnowledgeWord"]["enum"] == [t.value.lower() for t in KnowledgeType]
    assert set(defs["Piece"]["properties"]) == {
        "piece_id",
        "content",
        "knowledge_type",
        "info_type",
        "tags",
        "entity_id",
        "embedding_text",
    }
    assert set(defs["Node"]["properties"]) == {"node_id", "node_type", "label", "properties"}
    assert set(defs["Edge"]["properties"]) == {"source_id", "target_id", "edge_type", "properties"}
    assert defs["EdgeLink"]["required"] == ["piece_id"]
    assert defs["MetadataEntry"]["required"] == ["entity_type"]
    assert schema["required"] == ["pieces"]


def test_an_edge_linking_an_unknown_piece_is_refused_with_the_ids_it_may_link() -> None:
    answer = _answer()
    answer["graph"]["edges"][1]["properties"]["piece_id"] = "p9"
    message = _errors(answer)
    assert "graph.edges[1].properties.piece_id is 'p9'" in message
    assert "ids: p1, p2, p3" in message


def test_an_edge_without_a_linked_piece_is_refused() -> None:
    answer = _answer()
    answer["graph"]["edges"][0]["properties"] = {}
    assert "graph.edges.0.properties.piece_id" in _errors(answer).replace("\n", ".").replace(
        " ", ""
    )


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda a: a["pieces"][0].update(knowledge_type="RUMOUR"), "pieces.0.knowledge_type"),
        (lambda a: a["pieces"][1].update(piece_id="p1"), "repeated: p1"),
        (lambda a: a["pieces"][2].update(content="   "), "pieces.2.content"),
        (lambda a: a["graph"]["edges"][0].update(source_id="alice"), "needs a namespace"),
        (lambda a: a["graph"]["edges"][0].update(edge_type="owns ✓"), "graph.edges.0.edge_type"),
        (lambda a: a["graph"]["nodes"][0].update(colour="red"), "graph.nodes.0.colour"),
        (lambda a: a.update(pieces=[]), "pieces"),
    ],
    ids=["knowledge-type", "duplicate-id", "empty-content", "bad-key", "bad-relation",
         "extra-field", "no-pieces"],
)  # fmt: skip
def test_answers_the_loader_would_reject_are_refused(change: Any, where: str) -> None:
    answer = _answer()
    change(answer)
    assert where in _errors(answer).replace("\n  ", ".")


def test_a_valid_answer_becomes_the_load_request_with_nothing_rejected() -> None:
    knowledge = StructuredKnowledge.model_validate(EXAMPLE_ANSWER).to_file()
    loaded = read_file(knowledge, "structured:abc", ACME, priority=1)
    request = loaded.request
    assert loaded.rejected == []
    assert (request.source_urn, request.scope, request.kind, request.priority) == (
        "structured:abc", ACME, KIND, 1,
    )  # fmt: skip
    assert [(p.ref, p.knowledge_type, p.info_type) for p in request.pieces] == [
        ("p1", KnowledgeType.FACT, "context"),
        ("p2", KnowledgeType.FACT, "context"),
        ("p3", KnowledgeType.INSTRUCTION, "instructions"),
    ]
    assert request.pieces[0].embedding_text == "who leads the payments team"
    assert request.edges[0] == EdgeRecord(
        "person:alice-chen", "LEADS", "team:payments", (), {"piece_id": "p1"}
    )
    assert [p.entity_key for p in request.pieces] == [
        "person:alice-chen",
        "service:billing",
        "service:billing",
    ]
    assert request.nodes[0].properties == {"label": "Billing"}
    assert [n.key for n in request.nodes] == ["service:billing", "api:ledger"]
    assert request.metadata["team:payments"] == {"type": "team", "properties": {"name": "Payments"}}
