"""An ``evidencePack`` request as GraphQL (``resolvers/retrieval/evidence.py``) and MCP
(``evidence_pack`` in ``mcp/read_tools.py``) both make it: the reader scope decided, then
the pack assembled (``evidence.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.graph.model import GraphReader
from kenning.domain.retrieval.evidence import EvidencePack, evidence_pack
from kenning.domain.retrieval.search import ChunkIndex


@dataclass(frozen=True, slots=True)
class EvidencePorts:
    """What an evidence pack reads: the embedder, the chunk index and the graph."""

    embedder: Embedder
    index: ChunkIndex
    graph: GraphReader


@dataclass(frozen=True, slots=True)
class EvidenceAsk:
    """The question, the graph hops around its hits, how many hits, and the scope argument."""

    query: str
    hops: int = 2
    limit: int = 10
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class ScopedEvidence:
    """The pack and the scope it was read at (GraphQL's edges need it)."""

    pack: EvidencePack
    reader: Scope


async def evidence_for(
    caller: CallerScope, ask: EvidenceAsk, ports: EvidencePorts
) -> ScopedEvidence:
    """The evidence pack the caller may see for ``ask``; ``ValidationError`` for bad input."""
    reader = caller.reading(ask.scope)
    pack = await evidence_pack(
        ask.query,
        hops=ask.hops,
        limit=ask.limit,
        reader=reader,
        embedder=ports.embedder,
        index=ports.index,
        graph=ports.graph,
    )
    return ScopedEvidence(pack, reader)
