"""Arguments of the ingestion mutations that take no input object (``loadKnowledge``), with
their descriptions, as ``Annotated`` aliases the resolvers' signatures name."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

KnowledgeJson = Annotated[
    JSON,
    strawberry.argument(
        description="The whole knowledge file: metadata, pieces, graph and relations, in "
        "Kenning's format (camelCase: id, knowledgeType, source/relation/target/evidence) or "
        "the design's (snake_case: piece_id, entity_id, node_id, label, "
        "source_id/target_id/edge_type with properties.piece_id), recognised per file (see "
        "docs/guides/memory.md)."
    ),
]
LoadedUrn = Annotated[
    str, strawberry.argument(description="Loading the same URN again replaces it.")
]
LoadedAt = Annotated[
    datetime | None,
    strawberry.argument(
        description="When the file's pieces were true, for every one of them (the file "
        "format has no field for it): as ingestGraph's observedAt."
    ),
]
