"""Entity and triple precision, recall and F1 of an extraction against a labelled document.

Both sides are compared as Kenning stores them: an entity as its canonical node key
(``type:name`` through ``node_keys.canonicalize_key``, the normalization every reference
gets) and a triple as (source key, normalized edge type, target key), direction included.
A label's aliases count as its own key, as an alias resolves to its node in the graph.
Two lenient views say where a miss comes from: entities by name whatever their type, and
triples by their directed ends whatever their relation.

Example: a document labelled ``service:checkout-api`` and ``Payments owns checkout-api``
scores a prediction ``{"Service:Checkout-API"}`` with no edges as entity recall 1/N and
triple recall 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bench._extraction_set import LabelledDocument
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key, normalize_edge_type

Edge = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Counts:
    """True positives, false positives and false negatives of one comparison or a sum."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        """Share of predictions that are right; 1.0 when nothing was predicted or expected."""
        if self.tp + self.fp == 0:
            return 1.0 if self.fn == 0 else 0.0
        return self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> float:
        """Share of the expected that was predicted; 1.0 when nothing was expected."""
        if self.tp + self.fn == 0:
            return 1.0
        return self.tp / (self.tp + self.fn)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def compare(predicted: Iterable[object], expected: Iterable[object]) -> Counts:
    """Set comparison: duplicates count once."""
    got, want = set(predicted), set(expected)
    return Counts(len(got & want), len(got - want), len(want - got))


@dataclass(frozen=True, slots=True)
class Prediction:
    """What an extraction produced for one document: node keys and directed edges."""

    nodes: frozenset[str]
    edges: frozenset[Edge]

    @classmethod
    def of(cls, nodes: Iterable[str], edges: Iterable[Edge]) -> Prediction:
        return cls(frozenset(nodes), frozenset(edges))


@dataclass(frozen=True, slots=True)
class DocumentScore:
    document: str
    entities: Counts
    triples: Counts
    entity_names: Counts
    triple_ends: Counts


def entity_key(type_: str, name: str) -> str:
    """The canonical node key of a typed name: ``("Team", "Payments")`` → ``team:payments``."""
    return canonicalize_key(f"{type_}:{name}")


def edge_type(raw: str) -> str:
    """A relation as Kenning stores it; a name it would refuse stays as given, lower case."""
    try:
        return normalize_edge_type(raw)
    except ValidationError:
        return raw.strip().lower()


def _name(key: str) -> str:
    return key.partition(":")[2]


@dataclass(frozen=True, slots=True)
class _Gold:
    keys: dict[str, str]  # label name -> key
    aliases: dict[str, str]  # any accepted key -> the label's key
    names: dict[str, str]  # any accepted name -> the label's name

    @classmethod
    def of(cls, doc: LabelledDocument) -> _Gold:
        keys, aliases, names = {}, {}, {}
        for entity in doc.entities:
            key = entity_key(entity.type, entity.name)
            keys[entity.name] = key
            for spelling in (entity.name, *entity.aliases):
                alias = entity_key(entity.type, spelling)
                aliases[alias] = key
                names[_name(alias)] = _name(key)
        return cls(keys, aliases, names)

    def key(self, predicted: str) -> str:
        canonical = canonicalize_key(predicted)
        return self.aliases.get(canonical, canonical)

    def name(self, predicted_key: str) -> str:
        name = _name(canonicalize_key(predicted_key))
        return self.names.get(name, name)


def score_document(doc: LabelledDocument, prediction: Prediction) -> DocumentScore:
    """Strict and lenient counts of one document's prediction."""
    gold = _Gold.of(doc)
    want_edges = {
        (gold.keys[t.source], edge_type(t.relation), gold.keys[t.target]) for t in doc.triples
    }
    got_edges = {(gold.key(s), edge_type(r), gold.key(t)) for s, r, t in prediction.edges}
    return DocumentScore(
        document=doc.id,
        entities=compare((gold.key(k) for k in prediction.nodes), gold.keys.values()),
        triples=compare(got_edges, want_edges),
        entity_names=compare(
            (gold.name(k) for k in prediction.nodes), (_name(k) for k in gold.keys.values())
        ),
        triple_ends=compare(
            ((_name(s), _name(t)) for s, _, t in got_edges),
            ((_name(s), _name(t)) for s, _, t in want_edges),
        ),
    )


@dataclass(frozen=True, slots=True)
class SetScore:
    """Micro-averaged counts over the set, and the documents' own scores."""

    entities: Counts
    triples: Counts
    entity_names: Counts
    triple_ends: Counts
    documents: tuple[DocumentScore, ...] = field(default=())

    def worst(self, n: int = 5) -> list[DocumentScore]:
        """The ``n`` documents with the lowest triple F1, then entity F1."""
        return sorted(self.documents, key=lambda d: (d.triples.f1, d.entities.f1, d.document))[:n]


def score_set(scores: Sequence[DocumentScore]) -> SetScore:
    """Micro averages: the counts of every document summed before dividing."""
    return SetScore(
        entities=sum((s.entities for s in scores), Counts()),
        triples=sum((s.triples for s in scores), Counts()),
        entity_names=sum((s.entity_names for s in scores), Counts()),
        triple_ends=sum((s.triple_ends for s in scores), Counts()),
        documents=tuple(scores),
    )


def as_dict(counts: Counts) -> dict[str, float | int]:
    """Counts and ratios (rounded) for a JSON report."""
    return {
        "tp": counts.tp,
        "fp": counts.fp,
        "fn": counts.fn,
        "precision": round(counts.precision, 4),
        "recall": round(counts.recall, 4),
        "f1": round(counts.f1, 4),
    }
