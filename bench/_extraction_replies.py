"""Model answers made from the labelled set, for the fake Ollama (``fake.replier``): a chat
request whose passage holds labelled documents (or is a piece of one) gets their labels as
``ChunkExtraction`` JSON, limited to the entities the passage names. Anything else gets an
empty extraction. With these answers the harness check scores 1.0, so any
lower figure against the fake is the harness's own fault.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from bench._extraction_set import LabelledDocument, LabelledSet

PASSAGE_MARK = "Passage:\n"


def passage_of(body: Mapping[str, Any]) -> str:
    """The text of the first user message, after the prompt's ``Passage:`` line if any
    (later user messages are validation feedback on a retry)."""
    for message in body.get("messages", ()):
        if message.get("role") == "user":
            content = str(message.get("content", ""))
            return content.split(PASSAGE_MARK, 1)[-1].strip()
    return ""


def labelled_answer(doc: LabelledDocument, passage: str) -> dict[str, Any]:
    """The labels of ``doc`` an extraction of ``passage`` would give: entities it names,
    relations between them."""
    named = {e.name for e in doc.entities if e.name in passage}
    return {
        "entities": [
            {"type": e.type, "name": e.name, "description": ""}
            for e in doc.entities
            if e.name in named
        ],
        "relations": [
            {"source": t.source, "type": t.relation, "target": t.target, "confidence": 0.9}
            for t in doc.triples
            if t.source in named and t.target in named
        ],
    }


def labelled_replier(labelled: LabelledSet) -> Callable[[Mapping[str, Any]], str]:
    """A ``fake.replier``: the request's passage answered from the document it comes from."""
    documents = labelled.documents

    def reply(body: Mapping[str, Any]) -> str:
        passage = passage_of(body)
        held = [d for d in documents if passage and d.text in passage]
        held = held or [d for d in documents if passage and passage in d.text][:1]
        answer: dict[str, list[Any]] = {"entities": [], "relations": []}
        for doc in held:
            part = labelled_answer(doc, passage)
            answer["entities"] += [e for e in part["entities"] if e not in answer["entities"]]
            answer["relations"] += [r for r in part["relations"] if r not in answer["relations"]]
        return json.dumps(answer)

    return reply
