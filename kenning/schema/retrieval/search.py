"""Types of the `search` query."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.domain.retrieval import search as domain
from kenning.domain.retrieval.search import SearchMode
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.retrieval.chunk import Chunk

strawberry.enum(
    SearchMode,
    description="HYBRID fuses VECTOR (embeddings, cosine) and KEYWORD (BM25 full text) by score.",
)


@strawberry.type(description="A chunk found by `search`, with its score and per-index ranks.")
class SearchHit:
    chunk: Chunk
    score: float = strawberry.field(
        description="VECTOR: cosine similarity; KEYWORD: BM25 over the query's ceiling, in "
        "[0, 1); HYBRID: the weighted mean of the two (0 where an index did not return the "
        "chunk), in 0..1, 1 = perfect in both."
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

    @classmethod
    def from_hit(cls, hit: domain.SearchHit) -> SearchHit:
        """The GraphQL form of a domain hit."""
        return cls(
            chunk=Chunk.from_view(hit.chunk),
            score=hit.score,
            vector_rank=hit.vector_rank,
            keyword_rank=hit.keyword_rank,
            source_urn=hit.chunk.source_urn,
            kind=hit.chunk.kind,
            graph_refs=list(hit.chunk.graph_refs),
        )


@strawberry.type(description="The hits, best first.")
class SearchSuccess:
    hits: list[SearchHit]


SearchResult = Annotated[
    SearchSuccess | ValidationError | ScopeError,
    strawberry.union("SearchResult"),
]
