"""Types of the `search` query."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.retrieval.search import SearchMode
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.retrieval.chunk import Chunk

strawberry.enum(
    SearchMode,
    description="HYBRID fuses VECTOR (embeddings, cosine) and KEYWORD (full text) by rank.",
)


@strawberry.type(description="A chunk found by `search`, with its score and per-index ranks.")
class SearchHit:
    chunk: Chunk
    score: float = strawberry.field(
        description="VECTOR: cosine similarity; KEYWORD: text rank in [0, 1); "
        "HYBRID: fused rank score in (0, 1], 1 = first in both lists."
    )
    vector_rank: int | None = strawberry.field(
        description="1-based rank among the vector candidates; null when not among them."
    )
    keyword_rank: int | None = strawberry.field(
        description="1-based rank among the keyword candidates; null when not among them."
    )
    source_urn: str
    kind: str
    graph_refs: list[str]


@strawberry.type(description="The hits, best first.")
class SearchSuccess:
    hits: list[SearchHit]


SearchResult = Annotated[
    SearchSuccess | ValidationError | ScopeError,
    strawberry.union("SearchResult"),
]
