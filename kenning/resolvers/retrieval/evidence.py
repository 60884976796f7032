"""The resolver of `evidencePack`."""

from __future__ import annotations

import strawberry

from kenning.domain.retrieval import evidence as evidence_domain
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.types import Edge
from kenning.schema.retrieval.evidence import (
    EvidenceItem,
    EvidencePack,
    EvidencePackResult,
)


@error_members
async def resolve_evidence_pack(
    info: Info, query: str, hops: int = 2, limit: int = 10, scope: NarrowScope = None
) -> EvidencePackResult:
    """Search hits plus the graph within `hops` of what they mention."""
    runtime = info.context.runtime
    reader = read_scope(info, scope)
    pack = await evidence_domain.evidence_pack(
        query, hops=hops, limit=limit, reader=reader, embedder=runtime.embedder,
        index=runtime.chunk_index, graph=runtime.graph, config=None,
    )  # fmt: skip
    return EvidencePack(
        items=[
            EvidenceItem(
                source=item.source,
                confidence=item.confidence,
                chunk_ids=[strawberry.ID(c) for c in item.chunk_ids],
                content=item.content,
                source_urn=item.source_urn,
                edge=Edge.from_view(item.edge, reader) if item.edge else None,
            )
            for item in pack.items
        ],
        seeds=list(pack.seeds),
        related_nodes=list(pack.related_nodes),
        summary=pack.summary,
    )
