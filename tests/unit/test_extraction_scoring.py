"""The extraction benchmark's labelled set and its scoring (bench/_extraction_*.py)."""

from __future__ import annotations

import dataclasses
import re

import pytest

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
