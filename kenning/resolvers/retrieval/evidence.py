"""Resolvers of `evidencePack` and `agentContext`."""

from __future__ import annotations

import strawberry

from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.retrieval import agent_context as context_domain
from kenning.domain.retrieval import evidence as evidence_domain
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.graph.queries import alias_resolved
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.types import Edge, Node
from kenning.schema.retrieval.evidence import (
    AgentContext,
    AgentContextResult,
    ContextLine,
    ContextSection,
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


@error_members
async def resolve_agent_context(
    info: Info,
    query: str,
    entity_key: str | None = None,
    limit: int = 10,
    scope: NarrowScope = None,
) -> AgentContextResult:
    """What an agent should know for `query` about `entityKey`, by info type."""
    runtime = info.context.runtime
    reader = read_scope(info, scope)
    entity = None
    if entity_key is not None:
        canonical = parse_key(entity_key, field="entityKey").key
        [key] = await alias_resolved(info, reader, [canonical])
        entity = (await runtime.graph.nodes(reader, [key])).get(key)
    result = await context_domain.agent_context(
        query, entity=entity, limit=limit, reader=reader, embedder=runtime.embedder,
        index=runtime.chunk_index, graph=runtime.graph,
    )  # fmt: skip
    return AgentContext(
        entity=Node.from_view(result.entity, reader) if result.entity else None,
        sections=[
            ContextSection(
                info_type=section.info_type,
                lines=[
                    ContextLine(text=line.text, score=line.score,
                                chunk_ids=[strawberry.ID(c) for c in line.chunk_ids])
                    for line in section.lines
                ],
                text=section.text,
            )
            for section in result.sections
        ],
        text=result.text,
    )  # fmt: skip
