"""The extraction benchmark's labelled set and its scoring (bench/_extraction_*.py)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from bench._extraction_quality import measure_quality
from bench._extraction_replies import labelled_replier
from bench._extraction_scoring import (
    Counts,
    Prediction,
    compare,
    entity_key,
    score_document,
    score_set,
)
from bench._extraction_set import (
    LabelError,
    LabelledDocument,
    LabelledEntity,
    LabelledSet,
    Triple,
    check_set,
    load_set,
)
from kenning.domain.models.ports import ChatRequest, ModelPriority
from tests.fakes.model_client import FakeModelClient

LABELLED = load_set()
SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def _doc(doc_id: str) -> LabelledDocument:
    return next(d for d in LABELLED.documents if d.id == doc_id)


def _perfect(doc: LabelledDocument) -> Prediction:
    keys = {e.name: entity_key(e.type, e.name) for e in doc.entities}
    return Prediction.of(
        keys.values(), ((keys[t.source], t.relation, keys[t.target]) for t in doc.triples)
    )


CHECKOUT = _doc("svc-checkout")
CHECKOUT_KEYS = [
    "service:checkout-api",
    "team:payments",
    "database:ledger-db",
    "service:fraud-scorer",
    "person:priya natarajan",
]


def test_the_set_holds_thirty_short_documents_over_five_domains() -> None:
    docs = LABELLED.documents
    assert len(docs) >= 30
    assert {d.domain for d in docs} >= {
        "services",
        "incidents",
        "libraries",
        "people",
        "decisions",
        "customers",
    }
    for doc in docs:
        assert 2 <= len(SENTENCE_END.findall(doc.text)) <= 6, doc.id
        assert doc.entities and doc.triples, doc.id
    assert len(LABELLED.relations) <= 12 and len(LABELLED.entity_types) <= 10


def test_every_relation_and_type_of_the_vocabulary_is_used() -> None:
    used_relations = {t.relation for d in LABELLED.documents for t in d.triples}
    used_types = {e.type for d in LABELLED.documents for e in d.entities}
    assert used_relations == set(LABELLED.relations)
    assert used_types == set(LABELLED.entity_types)


@pytest.mark.parametrize(
    ("entities", "triples", "problem"),
    [
        ((LabelledEntity("person", "Ann"),), (Triple("Ann", "leads", "Ops"),), "does not list"),
        (
            (LabelledEntity("person", "Ann"), LabelledEntity("team", "Ops")),
            (Triple("Ann", "likes", "Ops"),),
            "not in the vocabulary",
        ),
        ((LabelledEntity("planet", "Ann"),), (), "not in the vocabulary"),
        ((LabelledEntity("person", "Bob"),), (), "does not occur"),
        ((LabelledEntity("person", "Ann"),), (Triple("Ann", "leads", "Ann"),), "self-loop"),
    ],
)
def test_a_label_that_breaks_the_rules_is_refused(
    entities: tuple[LabelledEntity, ...], triples: tuple[Triple, ...], problem: str
) -> None:
    doc = LabelledDocument("x", "people", "Ann leads Ops. Ops is a team.", entities, triples)
    broken = dataclasses.replace(LABELLED, documents=(doc,))
    with pytest.raises(LabelError, match=problem):
        check_set(broken)


def test_repeated_document_ids_are_refused() -> None:
    twice = LabelledSet(LABELLED.entity_types, LABELLED.relations, (CHECKOUT, CHECKOUT))
    with pytest.raises(LabelError, match="repeat"):
        check_set(twice)


def test_the_labels_themselves_score_one_everywhere() -> None:
    total = score_set([score_document(d, _perfect(d)) for d in LABELLED.documents])
    for counts in (total.entities, total.triples, total.entity_names, total.triple_ends):
        assert (counts.fp, counts.fn) == (0, 0)
        assert counts.precision == counts.recall == counts.f1 == 1.0
    assert total.triples.tp == sum(len(d.triples) for d in LABELLED.documents)


def test_keys_match_after_kennings_normalization_and_aliases() -> None:
    prediction = Prediction.of(
        ["Service:Checkout-API", "TEAM::Payments team", "person:Priya   Natarajan"],
        [
            ("team:Payments Team", "OWNS", "service:checkout-api"),
            ("Service:checkout-API", "dependsOn", "database:LEDGER-DB"),
        ],
    )
    score = score_document(CHECKOUT, prediction)
    assert score.entities == Counts(tp=3, fp=0, fn=2)
    assert score.triples == Counts(tp=2, fp=0, fn=2)


def test_a_reversed_triple_is_wrong_both_ways() -> None:
    reversed_owner = Prediction.of(
        CHECKOUT_KEYS, [("service:checkout-api", "owns", "team:payments")]
    )
    score = score_document(CHECKOUT, reversed_owner)
    assert score.triples == Counts(tp=0, fp=1, fn=4)
    assert score.triple_ends == Counts(tp=0, fp=1, fn=4)
    assert score.triples.precision == 0.0


def test_a_wrong_relation_or_type_counts_only_in_the_lenient_view() -> None:
    prediction = Prediction.of(
        ["library:checkout-api", *CHECKOUT_KEYS[1:]],
        [("team:payments", "maintains", "service:checkout-api")],
    )
    score = score_document(CHECKOUT, prediction)
    assert score.entities == Counts(tp=4, fp=1, fn=1)
    assert score.entity_names == Counts(tp=5, fp=0, fn=0)
    assert score.triples == Counts(tp=0, fp=1, fn=4)
    assert score.triple_ends == Counts(tp=1, fp=0, fn=3)


def test_an_empty_prediction_has_no_precision_and_no_recall() -> None:
    score = score_document(CHECKOUT, Prediction.of([], []))
    assert score.entities.precision == score.entities.recall == score.entities.f1 == 0.0
    assert Counts().precision == Counts().recall == 1.0


def test_duplicates_count_once() -> None:
    assert compare(["a", "a", "b"], ["a"]) == Counts(tp=1, fp=1, fn=0)


def test_the_set_score_is_micro_and_names_the_worst_documents() -> None:
    incident = _doc("inc-2041")
    empty = score_document(incident, Prediction.of([], []))  # 0 of 4 entities, 0 of 3 triples
    perfect = score_document(CHECKOUT, _perfect(CHECKOUT))  # 5 of 5, 4 of 4
    total = score_set([perfect, empty])
    assert total.entities == Counts(tp=5, fp=0, fn=4)
    assert total.entities.recall == pytest.approx(5 / 9)  # a macro mean would say 0.5
    assert total.triples.recall == pytest.approx(4 / 7)
    assert [d.document for d in total.worst(1)] == ["inc-2041"]
    assert [d.document for d in total.worst(5)] == ["inc-2041", "svc-checkout"]


def _fake_from_labels() -> FakeModelClient:
    """Answers each request as the fake Ollama does in the benchmark (its body rebuilt)."""
    reply = labelled_replier(LABELLED)

    def answer(request: ChatRequest) -> str:
        messages = [{"role": m.role.value, "content": m.content} for m in request.messages]
        return reply({"model": request.model, "messages": messages})

    return FakeModelClient(replier=answer)


async def test_kennings_extraction_of_the_labels_scores_one_the_harness_check() -> None:
    client = _fake_from_labels()
    run = await measure_quality(client, LABELLED, model="m", max_retries=0)
    assert client.calls == len(LABELLED.documents)
    assert {r.priority for r in client.requests} == {ModelPriority.BACKGROUND}
    assert run.score.triples == Counts(tp=sum(len(d.triples) for d in LABELLED.documents))
    assert run.score.entities.f1 == 1.0 and run.invalid == [] and run.dropped == 0


async def test_a_document_without_a_valid_answer_scores_zero_and_is_named() -> None:
    client = FakeModelClient(replies=['{"entities": [{"type": "x"}]}'])
    one = dataclasses.replace(LABELLED, documents=(CHECKOUT,))
    run = await measure_quality(client, one, model="m", max_retries=1)
    assert client.calls == 2  # the first answer and one retry
    assert run.invalid == ["svc-checkout"] and run.attempts == [2]
    assert run.score.entities == Counts(tp=0, fp=0, fn=5)


def test_the_fake_answers_a_chunk_of_several_documents_with_the_labels_it_holds() -> None:
    reply = labelled_replier(LABELLED)
    two = f"{CHECKOUT.text}\n\n{_doc('inc-2041').text}"
    answer = json.loads(reply({"messages": [{"role": "user", "content": f"Passage:\n{two}"}]}))
    assert len(answer["relations"]) == len(CHECKOUT.triples) + 3
    half = CHECKOUT.text.split(". ")[0]  # names checkout-api and Payments only
    answer = json.loads(reply({"messages": [{"role": "user", "content": f"Passage:\n{half}"}]}))
    assert {e["name"] for e in answer["entities"]} == {"checkout-api", "Payments"}
    assert answer["relations"] == [
        {"source": "Payments", "type": "owns", "target": "checkout-api", "confidence": 0.9}
    ]
