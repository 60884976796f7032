"""Evidence packs: search hits plus the graph around what they mention, ready for a prompt.

The hits of a hybrid search are the RAG items; the graph references of those hits are
the seeds, expanded ``hops`` levels; every edge met is a GRAPH item with its supporting
chunks. A RAG item's confidence is its score relative to the best hit (the best is 1.0),
because fused scores have no absolute scale; a GRAPH item's is the edge's confidence
(``n / (n + 1)`` over its supporting chunks).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.errors import ValidationError
from kenning.domain.graph.model import Direction, EdgeView, GraphReader
from kenning.domain.retrieval.search import (
    ChunkIndex,
    SearchConfig,
    SearchMode,
    SearchRequest,
    search,
)

MAX_HOPS = 3
MAX_LIMIT = 50
MAX_SEEDS = 50
EDGES_PER_HIT = 5


class EvidenceSource(StrEnum):
    """Where an evidence item came from."""

    RAG = "RAG"
    GRAPH = "GRAPH"


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """A chunk's text, or an edge triple, with its confidence and supporting chunk ids."""

    source: EvidenceSource
    confidence: float
    chunk_ids: tuple[str, ...]
    content: str | None = None
    source_urn: str | None = None
    edge: EdgeView | None = None


@dataclass(frozen=True, slots=True)
class EvidencePack:
    """The items, the seed nodes and a one-line summary."""

    items: tuple[EvidenceItem, ...]
    seeds: tuple[str, ...]
    related_nodes: tuple[str, ...]
    summary: str


def check(query: str, hops: int, limit: int) -> None:
    """``ValidationError`` naming the first bad argument."""
    if not query.strip():
        raise ValidationError("query is empty", field="query")
    if not 0 <= hops <= MAX_HOPS:
        raise ValidationError(f"hops must be 0..{MAX_HOPS}", field="hops")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit must be 1..{MAX_LIMIT}", field="limit")


async def evidence_pack(
    query: str,
    *,
    hops: int,
    limit: int,
    reader: Scope,
    embedder: Embedder,
    index: ChunkIndex,
    graph: GraphReader,
    config: SearchConfig | None = None,
) -> EvidencePack:
    """Search, seed the graph with the hits' references, expand, and package both."""
    check(query, hops, limit)
    hits = await search(
        SearchRequest(query=query, mode=SearchMode.HYBRID, limit=limit),
        reader=reader,
        embedder=embedder,
        index=index,
        config=config,
    )
    best = max((hit.score for hit in hits), default=0.0) or 1.0
    rag = [
        EvidenceItem(
            source=EvidenceSource.RAG,
            confidence=round(hit.score / best, 4),
            chunk_ids=(hit.chunk.id,),
            content=hit.chunk.content,
            source_urn=hit.chunk.source_urn,
        )
        for hit in hits
    ]
    seeds = tuple(dict.fromkeys(ref for hit in hits for ref in hit.chunk.graph_refs))[:MAX_SEEDS]
    edges = await _expand(graph, reader, seeds, hops, limit * EDGES_PER_HIT)
    graph_items = sorted(
        (
            EvidenceItem(
                source=EvidenceSource.GRAPH,
                confidence=edge.confidence,
                chunk_ids=edge.evidence_chunk_ids,
                edge=edge,
            )
            for edge in edges
        ),
        key=lambda item: (
            -item.confidence,
            item.edge.edge_type if item.edge else "",
            item.edge.from_key if item.edge else "",
            item.edge.to_key if item.edge else "",
        ),
    )
    related = tuple(sorted({k for e in edges for k in (e.from_key, e.to_key)} | set(seeds)))
    summary = (
        f"{len(rag)} chunk{'s' * (len(rag) != 1)}, "
        f"{len(related)} related node{'s' * (len(related) != 1)}"
    )
    return EvidencePack(tuple(rag + graph_items), seeds, related, summary)


async def _expand(
    graph: GraphReader, reader: Scope, seeds: tuple[str, ...], hops: int, limit: int
) -> list[EdgeView]:
    """Edges within ``hops`` of the seeds, breadth first, at most ``limit``."""
    seen = set(seeds)
    edges: dict[int, EdgeView] = {}
    frontier = list(seeds)
    for _ in range(hops):
        if not frontier or len(edges) >= limit:
            break
        rows = await graph.expand(reader, frontier, Direction.BOTH, None, limit - len(edges))
        frontier = []
        for edge in rows:
            edges.setdefault(edge.id, edge)
            for key in (edge.from_key, edge.to_key):
                if key not in seen:
                    seen.add(key)
                    frontier.append(key)
    return list(edges.values())[:limit]
