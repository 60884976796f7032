"""The resolver of `evidencePack`: it calls ``kenning.domain.retrieval.evidence_request``'s
``evidence_for``, as MCP ``evidence_pack`` does."""

from __future__ import annotations

import strawberry

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval import evidence as domain
from kenning.domain.retrieval.evidence_request import EvidenceAsk, evidence_for
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.types import Edge
from kenning.schema.retrieval.evidence import EvidenceItem, EvidencePack, EvidencePackResult


def _item(item: domain.EvidenceItem, reader: Scope) -> EvidenceItem:
    return EvidenceItem(
        source=item.source,
        confidence=item.confidence,
        chunk_ids=[strawberry.ID(c) for c in item.chunk_ids],
        content=item.content,
        source_urn=item.source_urn,
        edge=Edge.from_view(item.edge, reader) if item.edge else None,
    )


@error_members
async def resolve_evidence_pack(
    info: Info, query: str, hops: int = 2, limit: int = 10, scope: NarrowScope = None
) -> EvidencePackResult:
    """Search hits plus the graph within `hops` of what they mention."""
    ask = EvidenceAsk(query, hops, limit, to_scope(scope))
    found = await evidence_for(caller(info), ask, info.context.runtime.evidence_ports())
    pack = found.pack
    return EvidencePack(
        items=[_item(item, found.reader) for item in pack.items],
        seeds=list(pack.seeds),
        related_nodes=list(pack.related_nodes),
        summary=pack.summary,
    )
