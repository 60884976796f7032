"""The extraction benchmark's labelled set (``bench/data/extraction_set.json``): short
documents with the entities and directed triples a careful reader takes from them, in a
small vocabulary of entity types and relations that the set itself documents.

Example: ``load_set().documents[0].triples[0]`` → ``Triple("Payments", "owns", "checkout-api")``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SET_PATH = Path(__file__).resolve().parent / "data" / "extraction_set.json"


@dataclass(frozen=True, slots=True)
class LabelledEntity:
    """An entity as the text names it; ``aliases`` are other spellings the text uses."""

    type: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Triple:
    """A directed relation between two entities, named by their names."""

    source: str
    relation: str
    target: str


@dataclass(frozen=True, slots=True)
class LabelledDocument:
    id: str
    domain: str
    text: str
    entities: tuple[LabelledEntity, ...]
    triples: tuple[Triple, ...]


@dataclass(frozen=True, slots=True)
class LabelledSet:
    """The documents and the vocabulary they are labelled in (name -> meaning)."""

    entity_types: dict[str, str]
    relations: dict[str, str]
    documents: tuple[LabelledDocument, ...]


class LabelError(ValueError):
    """The labelled set breaks its own rules (a document names what it does not list)."""


def load_set(path: Path = SET_PATH) -> LabelledSet:
    """The labelled set at ``path``, checked: ``LabelError`` when a label breaks a rule."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    labelled = LabelledSet(
        entity_types=dict(raw["entity_types"]),
        relations=dict(raw["relations"]),
        documents=tuple(_document(item) for item in raw["documents"]),
    )
    check_set(labelled)
    return labelled


def _document(item: dict[str, Any]) -> LabelledDocument:
    return LabelledDocument(
        id=item["id"],
        domain=item["domain"],
        text=item["text"],
        entities=tuple(
            LabelledEntity(e["type"], e["name"], tuple(e.get("aliases", ())))
            for e in item["entities"]
        ),
        triples=tuple(Triple(*t) for t in item["triples"]),
    )


def check_set(labelled: LabelledSet) -> None:
    """Ids unique; every type and relation in the vocabulary; names unique per document and
    present in its text; every triple's ends listed entities, never the same one."""
    ids = [doc.id for doc in labelled.documents]
    if len(set(ids)) != len(ids):
        raise LabelError("document ids repeat")
    for doc in labelled.documents:
        _check_document(doc, labelled)


def _check_document(doc: LabelledDocument, labelled: LabelledSet) -> None:
    names = [e.name for e in doc.entities]
    if len(set(names)) != len(names):
        raise LabelError(f"{doc.id}: an entity is listed twice")
    for entity in doc.entities:
        if entity.type not in labelled.entity_types:
            raise LabelError(f"{doc.id}: type {entity.type!r} is not in the vocabulary")
        if entity.name not in doc.text:
            raise LabelError(f"{doc.id}: {entity.name!r} does not occur in the text")
    for triple in doc.triples:
        if triple.relation not in labelled.relations:
            raise LabelError(f"{doc.id}: relation {triple.relation!r} is not in the vocabulary")
        if triple.source not in names or triple.target not in names:
            raise LabelError(f"{doc.id}: {triple} names an entity it does not list")
        if triple.source == triple.target:
            raise LabelError(f"{doc.id}: {triple} is a self-loop")
