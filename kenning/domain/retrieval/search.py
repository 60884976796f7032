"""Search over chunks: modes, declarative configs with named presets, filters, the use case.

- ``VECTOR``: the query's embedding against the chunks' (cosine); score = cosine similarity
  (in practice 0..1 for sentence embedders; below 0 only for opposed texts).
- ``KEYWORD``: PostgreSQL full text scored with Okapi BM25 (k1 = 1.2, b = 0.75; term
  statistics kept per client by triggers, migration 0014). The query reads as a web search
  ("quoted phrase", -excluded, or) but a chunk matches when it holds any wanted term, not
  all of them (an agent's question as an all-terms query matches almost nothing); score =
  the chunk's BM25 over the query's ceiling (what a chunk saturated with every wanted term
  would score), in [0, 1): the share of the query's attainable evidence the chunk holds.
- ``HYBRID``: both, each ``depth`` candidates deep, fused by default by score
  (``kenning.domain.retrieval.fusion``): score = the weighted mean of the chunk's VECTOR and
  KEYWORD scores, 0 for a list that lacks it, in 0..1 (1.0 = a perfect score in both). With
  ``FusionMethod.RRF`` they are fused by reciprocal rank instead
  (``kenning.domain.retrieval.rank_fusion``): score in (0, 1], 1.0 = ranked first by both.

Every mode's score lies in 0..1 and higher is better, so one ``minScore`` reads the same way
in each; the scales are not calibrated against each other, so the same threshold keeps
somewhat different shares of hits per mode (a HYBRID score is never above the better of the
chunk's two index scores). The reader's scope always travels with the
request and the index applies it; filters narrow further (``search_filters``: any of the
values within a filter, all filters together), inside the statement that ranks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.errors import ConfigurationError, TooLargeError, ValidationError
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.priorities import QUERY_PRIORITY
from kenning.domain.retrieval.fusion import fuse_scores
from kenning.domain.retrieval.rank_fusion import DEFAULT_K, Fused, fuse
from kenning.domain.retrieval.search_filters import (
    MAX_FILTER_VALUES,
    SearchFilters,
    check_filters,
    check_vector_weight,
)

__all__ = ["MAX_FILTER_VALUES", "SearchFilters"]

DEFAULT_MAX_LIMIT: Final = 100
MAX_QUERY_LENGTH: Final = 4000


class SearchMode(StrEnum):
    """Which index answers."""

    HYBRID = "HYBRID"
    VECTOR = "VECTOR"
    KEYWORD = "KEYWORD"


class FusionMethod(StrEnum):
    """How HYBRID merges its two lists: by their scores (default) or by reciprocal rank."""

    SCORES = "scores"
    RRF = "rrf"


@dataclass(frozen=True, slots=True)
class FusionWeights:
    """How HYBRID fuses: the weight of each list, the method, and ``k`` (RRF only)."""

    k: int = DEFAULT_K
    vector: float = 1.0
    keyword: float = 1.0
    method: FusionMethod = FusionMethod.SCORES

    def __post_init__(self) -> None:
        if self.k < 1 or min(self.vector, self.keyword) < 0 or self.vector + self.keyword <= 0:
            raise ConfigurationError(
                "search fusion needs k >= 1 and non-negative weights, not both zero"
            )


@dataclass(frozen=True, slots=True)
class CandidateDepth:
    """How many candidates each index returns for fusion: ``limit * multiplier``, at least
    ``minimum``, at most ``maximum`` (never fewer than ``limit``).

    A hit ranked just below the limit in both lists can fuse above one near the top of one
    list only, so each list is read deeper than the limit; each candidate is also a row
    PostgreSQL reads and sends, so the depth is bounded (what depth bought on SciFact is on
    the documentation's Benchmarks page).
    """

    multiplier: int = 3
    minimum: int = 50
    maximum: int = 1000

    def for_limit(self, limit: int) -> int:
        """Example: ``CandidateDepth().for_limit(10) == 50``."""
        return max(limit, min(max(limit * self.multiplier, self.minimum), self.maximum))


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """How one search runs; named presets below, overridable with ``dataclasses.replace``."""

    mode: SearchMode
    fusion: FusionWeights = field(default_factory=FusionWeights)
    depth: CandidateDepth = field(default_factory=CandidateDepth)


PRESETS: Final[Mapping[str, SearchConfig]] = {
    "hybrid": SearchConfig(SearchMode.HYBRID),
    "hybrid_rrf": SearchConfig(SearchMode.HYBRID, FusionWeights(method=FusionMethod.RRF)),
    "vector": SearchConfig(SearchMode.VECTOR),
    "keyword": SearchConfig(SearchMode.KEYWORD),
}
_PRESET_OF_MODE: Final = {
    SearchMode.HYBRID: "hybrid",
    SearchMode.VECTOR: "vector",
    SearchMode.KEYWORD: "keyword",
}


def config_for(mode: SearchMode, fusion: FusionWeights | None = None) -> SearchConfig:
    """The preset of ``mode``, with the server's fusion weights when given."""
    preset = PRESETS[_PRESET_OF_MODE[mode]]
    return preset if fusion is None else dataclasses.replace(preset, fusion=fusion)


def with_vector_weight(config: SearchConfig, weight: float | None) -> SearchConfig:
    """``config`` with HYBRID's lists weighted ``weight`` and ``1 - weight`` (``None``: as
    configured). Example: 0.0 ranks by keywords alone, 1.0 by meaning alone."""
    if weight is None:
        return config
    fusion = dataclasses.replace(config.fusion, vector=weight, keyword=1.0 - weight)
    return dataclasses.replace(config, fusion=fusion)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What a caller asks for."""

    query: str
    mode: SearchMode = SearchMode.HYBRID
    limit: int = 10
    min_score: float | None = None
    filters: SearchFilters = field(default_factory=SearchFilters)
    vector_weight: float | None = None  # HYBRID: the vector list's share, 0..1


@dataclass(frozen=True, slots=True)
class IndexHit:
    """A chunk an index found, with the index's own score."""

    chunk: ChunkView
    score: float


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One result: the chunk, the mode's score and the 1-based rank in each index used."""

    chunk: ChunkView
    score: float
    vector_rank: int | None
    keyword_rank: int | None


class ChunkIndex(Protocol):
    """Reads candidates visible to ``reader`` that pass ``filters``, best first."""

    async def nearest(
        self, embedding: Sequence[float], reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Up to ``limit`` chunks by cosine similarity to ``embedding`` (score = similarity)."""
        ...

    async def matching(
        self, text: str, reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Up to ``limit`` chunks holding any wanted term of ``text``, by BM25 (score in [0, 1))."""
        ...


def validate(request: SearchRequest, max_limit: int = DEFAULT_MAX_LIMIT) -> SearchRequest:
    """The request with its filters in canonical form; ``ValidationError`` naming the first
    bad field (GraphQL names)."""
    if not request.query.strip():
        raise ValidationError("query must not be empty", field="query")
    if len(request.query) > MAX_QUERY_LENGTH:
        raise TooLargeError(f"query is longer than {MAX_QUERY_LENGTH} characters", field="query")
    if not 1 <= request.limit <= max_limit:
        raise ValidationError(f"limit must be between 1 and {max_limit}", field="limit")
    if request.min_score is not None and not math.isfinite(request.min_score):
        raise ValidationError("minScore must be a finite number", field="minScore")
    check_vector_weight(request.vector_weight)
    return dataclasses.replace(request, filters=check_filters(request.filters))


async def search(
    request: SearchRequest,
    *,
    reader: Scope,
    embedder: Embedder,
    index: ChunkIndex,
    config: SearchConfig | None = None,
    max_limit: int = DEFAULT_MAX_LIMIT,
) -> list[SearchHit]:
    """The best ``limit`` chunks ``reader`` may see, best first; raises ``ValidationError``.

    Example: ``await search(SearchRequest("login bug", SearchMode.KEYWORD), reader=Scope("acme"),
    embedder=embedder, index=index)``.
    """
    request = validate(request, max_limit)
    config = with_vector_weight(config or config_for(request.mode), request.vector_weight)
    if config.mode is SearchMode.VECTOR:
        found = await _nearest(request, reader, embedder, index, request.limit)
        hits = [SearchHit(h.chunk, h.score, rank, None) for rank, h in enumerate(found, 1)]
    elif config.mode is SearchMode.KEYWORD:
        found = await index.matching(request.query, reader, request.filters, request.limit)
        hits = [SearchHit(h.chunk, h.score, None, rank) for rank, h in enumerate(found, 1)]
    else:
        hits = await _hybrid(request, reader, embedder, index, config)
    if request.min_score is not None:
        hits = [hit for hit in hits if hit.score >= request.min_score]
    # What still holds ranks above what was superseded (each keeps its order).
    hits.sort(key=lambda hit: not hit.chunk.current)
    return hits[: request.limit]


async def _nearest(
    request: SearchRequest, reader: Scope, embedder: Embedder, index: ChunkIndex, limit: int
) -> list[IndexHit]:
    [embedding] = await embedder.embed([request.query], priority=QUERY_PRIORITY)
    return await index.nearest(embedding, reader, request.filters, limit)


async def _hybrid(
    request: SearchRequest,
    reader: Scope,
    embedder: Embedder,
    index: ChunkIndex,
    config: SearchConfig,
) -> list[SearchHit]:
    depth = config.depth.for_limit(request.limit)
    # The keyword search needs no embedding, so it runs while the query is being embedded.
    vector, keyword = await _both(
        _nearest(request, reader, embedder, index, depth),
        index.matching(request.query, reader, request.filters, depth),
    )
    chunks = {hit.chunk.id: hit.chunk for hit in (*vector, *keyword)}
    fused = _fused(vector, keyword, config.fusion)
    return [SearchHit(chunks[f.key], f.score, f.ranks[0], f.ranks[1]) for f in fused]


def _fused(
    vector: list[IndexHit], keyword: list[IndexHit], fusion: FusionWeights
) -> list[Fused[str]]:
    weights = [fusion.vector, fusion.keyword]
    if fusion.method is FusionMethod.RRF:
        ids = [[hit.chunk.id for hit in vector], [hit.chunk.id for hit in keyword]]
        return fuse(ids, weights, k=fusion.k)
    scored = [[(hit.chunk.id, hit.score) for hit in hits] for hits in (vector, keyword)]
    return fuse_scores(scored, weights)


async def _both(
    first: Coroutine[Any, Any, list[IndexHit]], second: Coroutine[Any, Any, list[IndexHit]]
) -> tuple[list[IndexHit], list[IndexHit]]:
    # Unlike a TaskGroup, this re-raises the first error itself (an EmbeddingError stays an
    # EmbeddingError), and unlike a bare gather it does not leave the other task running.
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    try:
        a, b = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return a, b
