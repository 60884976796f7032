"""The prompt ``structureKnowledge`` sends, versioned: a check-in records the version its
output came from, so a changed prompt is a new ``STRUCTURE_PROMPT_VERSION``.

The system message states the rules and one short example (text and the answer it should
give); the user message carries the text and the caller's hints. The answer's shape is
``structure_output.StructuredKnowledge`` (the design's knowledge-file format, 003 §Path B),
also sent as the JSON schema.
"""

from __future__ import annotations

import json
from typing import Final

from kenning.domain.extraction.structure_output import KnowledgeWord

STRUCTURE_PROMPT_VERSION: Final = "structure-v2"

EXAMPLE_TEXT: Final = (
    "Alice Chen leads the payments team. The billing service belongs to payments and "
    "calls the ledger API to record invoices. Before deploying billing, always run the "
    "contract tests."
)

_BILLING = (
    "The billing service belongs to the payments team and calls the ledger API to record invoices."
)
EXAMPLE_ANSWER: Final = {
    "metadata": {
        "person:alice-chen": {"entity_type": "person", "properties": {"name": "Alice Chen"}},
        "team:payments": {"entity_type": "team", "properties": {"name": "Payments"}},
    },
    "pieces": [
        {
            "piece_id": "p1",
            "content": "Alice Chen leads the payments team.",
            "knowledge_type": "fact",
            "info_type": "context",
            "tags": ["people"],
            "entity_id": "person:alice-chen",
            "embedding_text": "who leads the payments team",
        },
        {
            "piece_id": "p2",
            "content": _BILLING,
            "knowledge_type": "fact",
            "info_type": "context",
            "tags": ["architecture"],
            "entity_id": "service:billing",
            "embedding_text": "what billing depends on",
        },
        {
            "piece_id": "p3",
            "content": "Before deploying the billing service, always run the contract tests.",
            "knowledge_type": "instruction",
            "info_type": "instructions",
            "tags": ["deploy"],
            "entity_id": "service:billing",
            "embedding_text": "how to deploy billing",
        },
    ],
    "graph": {
        "nodes": [
            {
                "node_id": "service:billing",
                "node_type": "service",
                "label": "Billing",
                "properties": {},
            },
            {"node_id": "api:ledger", "node_type": "api", "label": "Ledger API", "properties": {}},
        ],
        "edges": [
            {
                "source_id": "person:alice-chen",
                "target_id": "team:payments",
                "edge_type": "LEADS",
                "properties": {"piece_id": "p1"},
            },
            {
                "source_id": "service:billing",
                "target_id": "team:payments",
                "edge_type": "BELONGS_TO",
                "properties": {"piece_id": "p2"},
            },
            {
                "source_id": "service:billing",
                "target_id": "api:ledger",
                "edge_type": "CALLS",
                "properties": {"piece_id": "p2"},
            },
        ],
    },
}

SYSTEM: Final = f"""You turn an expert's free text into a knowledge file: JSON with \
"metadata", "pieces" and "graph".

Rules:
- pieces: split the text into short self-contained passages (one fact, instruction or \
preference each), rewritten only to resolve pronouns; never invent facts. Each piece has a \
unique "piece_id" (p1, p2, ...), "content", "knowledge_type" (one of \
{", ".join(KnowledgeWord)}), an "info_type" (context, instructions, skills, preferences, \
...), a few lower-case "tags", the "entity_id" of the entity it is about (a node key) and \
an "embedding_text": the question the piece answers.
- graph.nodes: the entities the text names, each "node_id" a key "type:name" in lower case \
with dashes (service:billing, person:alice-chen), with its "node_type" and its "label" as \
the text names it.
- graph.edges: relations the text states, "source_id" and "target_id" node keys, \
"edge_type" an UPPER_SNAKE verb (OWNS, DEPENDS_ON, CALLS), "properties" holding the \
"piece_id" of the piece that states it. Every edge links a piece of this answer; leave out \
a relation no piece states.
- metadata: for people, teams and other entities with attributes, key -> \
{{"entity_type": ..., "properties": {{name: plain value}}}}.
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
