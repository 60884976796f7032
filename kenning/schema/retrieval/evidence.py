"""Types of `evidencePack` and `agentContext`."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.retrieval.evidence import EvidenceSource
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.graph.types import Edge, Node

strawberry.enum(EvidenceSource, description="Where an evidence item came from.")


@strawberry.type(description="A chunk's text (RAG) or an edge (GRAPH) with its support.")
class EvidenceItem:
    source: EvidenceSource
    confidence: float
    chunk_ids: list[strawberry.ID]
    content: str | None
    source_urn: str | None
    edge: Edge | None


@strawberry.type(description="Search hits and the graph around them, for a prompt.")
class EvidencePack:
    items: list[EvidenceItem]
    seeds: list[str]
    related_nodes: list[str]
    summary: str


EvidencePackResult = Annotated[
    EvidencePack | ValidationError | ScopeError, strawberry.union("EvidencePackResult")
]


@strawberry.type(description="One line of a context section, with its supporting chunks.")
class ContextLine:
    text: str
    chunk_ids: list[strawberry.ID]
    score: float | None
    block: str | None = strawberry.field(
        description="The block it is shown in (Metadata, Global Metadata, Knowledge, "
        "Relationships); null for a bullet of rules, session, procedures or history."
    )
    tags: list[str] = strawberry.field(description="A knowledge item's tags.")


@strawberry.type(
    description="One section (rules, user_profile, an info type, session, procedures): its "
    "lines and its prompt text."
)
class ContextSection:
    info_type: str
    lines: list[ContextLine]
    omitted: int = strawberry.field(
        description="How many lower-ranked lines the budget cut (the text says so too)."
    )
    text: str


@strawberry.type(
    description="Sections in a fixed order; `text` is deterministic; `entity` is the user entity."
)
class AgentContext:
    entity: Node | None
    sections: list[ContextSection]
    text: str


AgentContextResult = Annotated[
    AgentContext | ValidationError | ScopeError, strawberry.union("AgentContextResult")
]
