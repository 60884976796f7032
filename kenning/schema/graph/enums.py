"""The graph's enums as GraphQL names and describes them, registered once, before any type
that uses them."""

from __future__ import annotations

import strawberry

from kenning.domain.graph.model import Direction
from kenning.domain.ingestion.edge_sources import EvidenceKind
from kenning.domain.ingestion.validity import EndReason

strawberry.enum(Direction, description="Which edges of a node to follow.")
strawberry.enum(
    EndReason,
    name="EndedReason",
    description="Why an edge stopped holding: a newer assertion of a relation declared ONE "
    "or a source the writer replaced (SUPERSEDED), a retraction (RETRACTED), a model that "
    "found it contradicted (CONTRADICTED), an erasure (ERASED).",
)

strawberry.enum(
    EvidenceKind,
    description="What supports an edge: chunks of text that state it (TEXT), or a source "
    "that gave it with no text, such as an org chart or a structured import (ASSERTED).",
)

__all__ = ["Direction", "EndReason", "EvidenceKind"]
