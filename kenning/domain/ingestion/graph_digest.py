"""The content hash of a structured ingest: what is stored of it once checked, so an
identical ingest is skipped and any change (a piece's entity included) replaces the source."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kenning.domain.ingestion.content_hash import IndexedPayload, content_hash

if TYPE_CHECKING:
    from kenning.domain.ingestion.graph_items import GraphRequest, Items


def graph_digest(request: GraphRequest, items: Items) -> str:
    """The hash of ``items``' pieces, nodes and edges as ``request``'s source."""
    document = {
        "pieces": [
            [p.ref, p.content, p.knowledge_type or "", p.info_type or "", sorted(p.tags)]
            + ([p.embedding_text] if p.embedding_text else [])
            + ([p.metadata] if p.metadata else [])
            + ([{"entity": p.entity_key}] if p.entity_key else [])
            for p in items.pieces.values()
        ],
        "nodes": sorted([k, n.type, n.properties] for k, n in items.nodes.items()),
        "edges": sorted(
            [e.from_key, e.edge_type, e.to_key, sorted(e.evidence_chunk_ids)]
            + ([e.properties] if e.properties else [])
            for e in items.edges.values()
        ),
    }
    return content_hash(
        IndexedPayload(
            source_urn=request.source_urn,
            content=json.dumps(document, sort_keys=True, default=str),
            kind=request.kind,
            scope=request.scope,
            connection_id=request.connection_id or "",
            source_kind=request.source_kind or "",
        )
    )
