"""The prompt ``structureKnowledge`` sends, versioned: a check-in records the version its
output came from, so a changed prompt is a new ``STRUCTURE_PROMPT_VERSION``.

The system message states the rules and one short example (text and the answer it should
give); the user message carries the text and the caller's hints. The answer's shape is
``structure_output.StructuredKnowledge``, also sent as the JSON schema.
"""

from __future__ import annotations

import json
from typing import Final

from kenning.domain.ingestion.request import KnowledgeType

STRUCTURE_PROMPT_VERSION: Final = "structure-v1"

EXAMPLE_TEXT: Final = (
    "Alice Chen leads the payments team. The billing service belongs to payments and "
    "calls the ledger API to record invoices. Before deploying billing, always run the "
    "contract tests."
)

EXAMPLE_ANSWER: Final = {
    "metadata": {
        "person:alice-chen": {"type": "person", "properties": {"name": "Alice Chen"}},
        "team:payments": {"type": "team", "properties": {"name": "Payments"}},
    },
    "pieces": [
        {"id": "p1", "content": "Alice Chen leads the payments team.",
         "knowledgeType": "FACT", "infoType": "context", "tags": ["people"],
         "embeddingText": "who leads the payments team"},
        {"id": "p2", "content": "The billing service belongs to the payments team and calls "
         "the ledger API to record invoices.", "knowledgeType": "FACT", "infoType": "context",
         "tags": ["architecture"], "embeddingText": "what billing depends on"},
        {"id": "p3", "content": "Before deploying the billing service, always run the "
         "contract tests.", "knowledgeType": "INSTRUCTION", "infoType": "instructions",
         "tags": ["deploy"], "embeddingText": "how to deploy billing"},
    ],
    "graph": {
        "nodes": [
            {"id": "service:billing", "type": "service", "properties": {}},
            {"id": "api:ledger", "type": "api", "properties": {}},
        ],
        "edges": [
            {"source": "person:alice-chen", "relation": "LEADS", "target": "team:payments",
             "evidence": ["p1"]},
            {"source": "service:billing", "relation": "BELONGS_TO", "target": "team:payments",
             "evidence": ["p2"]},
            {"source": "service:billing", "relation": "CALLS", "target": "api:ledger",
             "evidence": ["p2"]},
        ],
    },
}  # fmt: skip

SYSTEM: Final = f"""You turn an expert's free text into a knowledge file: JSON with \
"metadata", "pieces" and "graph".

Rules:
- pieces: split the text into short self-contained passages (one fact, instruction or \
preference each), rewritten only to resolve pronouns; never invent facts. Each piece has a \
unique "id" (p1, p2, ...), "content", "knowledgeType" (one of \
{", ".join(KnowledgeType)}), an "infoType" (context, instructions, skills, preferences, \
...), a few lower-case "tags" and an "embeddingText": the question the piece answers.
- graph.nodes: the entities the text names, each "id" a key "type:name" in lower case with \
dashes (service:billing, person:alice-chen), with its "type".
- graph.edges: relations the text states, "source" and "target" node keys, "relation" an \
UPPER_SNAKE verb (OWNS, DEPENDS_ON, CALLS), "evidence" the ids of the pieces that state it. \
Every edge cites at least one piece of this answer; leave out a relation no piece states.
- metadata: for people, teams and other entities with attributes, key -> \
{{"type": ..., "properties": {{name: plain value}}}}.
- Never copy passwords, tokens or keys into the answer.

Example text:
{EXAMPLE_TEXT}

Example answer:
{json.dumps(EXAMPLE_ANSWER)}

Answer with the JSON only."""


def structure_prompt(text: str, hints: str | None) -> str:
    """The user message: the caller's hints (when given), then the text to structure."""
    guidance = f"Hints from the caller: {hints.strip()}\n\n" if hints and hints.strip() else ""
    return f"{guidance}Text to structure:\n{text}"
