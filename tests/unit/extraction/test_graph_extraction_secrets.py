"""A credential in an extraction answer: the chunk was checked, the model's answer is too."""

from __future__ import annotations

import json

from kenning.domain.extraction.graph_extraction import ChunkExtraction, extract_graph
from kenning.domain.extraction.graph_merge import merge_extractions
from tests.fakes.model_client import FakeModelClient

CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"


def answer(name: str = "Billing", description: str = "Bills customers.") -> str:
    return json.dumps({
        "entities": [{"type": "service", "name": name, "description": description},
                     {"type": "database", "name": "Postgres", "description": ""}],
        "relations": [{"source": name, "type": "uses", "target": "Postgres",
                       "confidence": 0.9}],
    })  # fmt: skip


async def test_a_description_holding_a_credential_is_stored_redacted() -> None:
    client = FakeModelClient([answer(description=f"Deploys with {CREDENTIAL}.")])
    found = await extract_graph(client, "Billing uses Postgres.", model="m")
    [billing, _] = found.value.entities
    assert CREDENTIAL not in billing.description and "[REDACTED:" in billing.description
    graph = merge_extractions([("c1", found.value)], {}, model="m")
    assert CREDENTIAL not in json.dumps([dict(n.defaults) for n in graph.nodes])
    # What the cache keeps is the validated answer: redacted too.
    assert CREDENTIAL not in json.dumps(found.value.model_dump(mode="json"))


async def test_an_entity_named_by_a_credential_is_refused_and_asked_again() -> None:
    client = FakeModelClient([answer(name=f"key {CREDENTIAL}"), answer()])
    found = await extract_graph(client, "Billing uses Postgres.", model="m")
    assert client.calls == 2
    fed_back = client.requests[1].messages[-1].content
    assert "entities[0].name holds a credential" in fed_back and CREDENTIAL not in fed_back
    assert [e.name for e in found.value.entities] == ["Billing", "Postgres"]
    assert [a.error for a in found.attempts][1] is None
    assert CREDENTIAL not in json.dumps([a.error for a in found.attempts])


def test_a_clean_answer_is_kept_as_given() -> None:
    value = ChunkExtraction.model_validate_json(answer())
    assert value.entities[0].description == "Bills customers."
