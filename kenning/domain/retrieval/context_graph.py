"""Agent context's graph layer (003 §Stage 3, step 3): breadth-first from the entities up to
``depth`` hops, each edge scored by the inverse of the hop it was reached at, and the pieces
its evidence links merged in with the search's (step 4).

- **Traversal.** Hop 1 reads at most ``FIRST_HOP_EDGES`` edges per start key (both
  directions); each further hop at most ``HOP_EDGES`` edges touching the keys first reached
  at the hop before, in the reader's stable order (type, from, to, id). One statement per
  hop; every read is the reader's and answers at the graph reader's time (``at``).
- **Scores.** A neighbour first reached at hop ``d`` scores ``1 / d``; so does the piece
  linked by the edge that reached it (the best hop wins when several edges link it).
- **Linked pieces.** An edge's pieces are its evidence chunks that are pieces (carry an
  info type), visible to the reader; a chunk with no info type is evidence, not a piece.
- **Merge.** Search hits and linked pieces, one per chunk id with the higher score, sorted
  by (-score, chunk id).

``read_graph`` reads the whole layer (the hops, then the evidence chunks and the edges'
targets at once), so the assembly runs it beside the search: it adds no step after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.graph.chunk_view import MAX_CHUNK_IDS, ChunksById, ChunkView
from kenning.domain.graph.model import Direction, EdgeView, GraphReader, NodeView
from kenning.domain.retrieval.search import SearchHit

DEFAULT_DEPTH: Final = 2
FIRST_HOP_EDGES: Final = 50
HOP_EDGES: Final = 50
# An edge restated by many chunks links its first few (by id), so one hub edge cannot crowd
# out the rest of the context.
PIECES_PER_EDGE: Final = 3


@dataclass(frozen=True, slots=True)
class Reached:
    """An edge of the traversal and the hop it was first reached at (1 = touches a start)."""

    edge: EdgeView
    depth: int

    @property
    def score(self) -> float:
        """``1 / depth``: 1.0 at one hop, 0.5 at two, 0.33 at three."""
        return 1.0 / self.depth


@dataclass(frozen=True, slots=True)
class GraphLayer:
    """What the graph layer read: the edges with their hops, the visible chunks they may
    link (by id) and the visible targets of the edges (for their labels, by key)."""

    reached: list[Reached] = field(default_factory=list)
    chunks: dict[str, ChunkView] = field(default_factory=dict)
    nodes: dict[str, NodeView] = field(default_factory=dict)


async def read_graph(
    graph: GraphReader, chunks: ChunksById, reader: Scope, starts: Sequence[str], depth: int
) -> GraphLayer:
    """The layer around ``starts``: ``depth`` hops, then evidence and targets concurrently."""
    reached = await traverse(graph, reader, starts, depth)
    if not reached:
        return GraphLayer()
    ids = evidence_ids(reached)
    found, nodes = await asyncio.gather(
        chunks.by_ids(ids, reader), graph.nodes(reader, sorted({r.edge.to_key for r in reached}))
    )
    return GraphLayer(reached, found, nodes)


async def traverse(
    graph: GraphReader, reader: Scope, starts: Sequence[str], depth: int
) -> list[Reached]:
    """Every edge within ``depth`` hops of ``starts``, by edge id, with its first hop."""
    if not starts:
        return []
    found = await graph.edges_of(reader, starts, Direction.BOTH, None, FIRST_HOP_EDGES)
    reached = {e.id: Reached(e, 1) for key in starts for e in found.get(key, [])}
    seen = set(starts)
    frontier = _new_keys((r.edge for r in reached.values()), seen)
    for hop in range(2, depth + 1):
        if not frontier:
            break
        rows = await graph.expand(reader, frontier, Direction.BOTH, None, HOP_EDGES)
        fresh = [edge for edge in rows if edge.id not in reached]
        reached |= {edge.id: Reached(edge, hop) for edge in fresh}
        frontier = _new_keys(fresh, seen)
    return [reached[i] for i in sorted(reached)]


def _new_keys(edges: Iterable[EdgeView], seen: set[str]) -> list[str]:
    """The ends of ``edges`` not seen before, in order; marks them seen."""
    new: list[str] = []
    for edge in edges:
        for key in (edge.from_key, edge.to_key):
            if key not in seen:
                seen.add(key)
                new.append(key)
    return sorted(new)


def evidence_ids(reached: Iterable[Reached]) -> list[str]:
    """The chunk ids that may link pieces: the first few of each edge, at most a read's worth."""
    ids = {c for r in reached for c in sorted(set(r.edge.evidence_chunk_ids))[:PIECES_PER_EDGE]}
    return sorted(ids)[:MAX_CHUNK_IDS]


def piece_types(chunks: Iterable[ChunkView]) -> dict[str, str]:
    """The info type of every chunk that is a piece (has one), by chunk id."""
    return {chunk.id: chunk.info_type for chunk in chunks if chunk.info_type}


def linked_pieces(reached: Iterable[Reached], chunks: dict[str, ChunkView]) -> list[SearchHit]:
    """The pieces the edges link, each scored by the best hop that links it."""
    best: dict[str, float] = {}
    for r in reached:
        for chunk_id in sorted(set(r.edge.evidence_chunk_ids))[:PIECES_PER_EDGE]:
            chunk = chunks.get(chunk_id)
            if chunk is not None and chunk.info_type:
                best[chunk_id] = max(best.get(chunk_id, 0.0), r.score)
    return [SearchHit(chunks[i], score, None, None) for i, score in best.items()]


def merged(hits: Iterable[SearchHit], linked: Iterable[SearchHit]) -> list[SearchHit]:
    """One hit per chunk id, the higher score kept, sorted by (-score, chunk id)."""
    best: dict[str, SearchHit] = {}
    for hit in [*hits, *linked]:
        kept = best.get(hit.chunk.id)
        if kept is None or hit.score > kept.score:
            best[hit.chunk.id] = hit
    return sorted(best.values(), key=lambda hit: (-hit.score, hit.chunk.id))
